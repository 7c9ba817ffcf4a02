//! The entity-to-index diagram as SVG, laid out so that no two labels can overlap.
//!
//! Three columns: the entities on the left, one label per key (an entity's primary key and each
//! index key it writes: `GSI2: SELLER#<seller_id> / <created_at>` for a key template, `GSI1:
//! pk(category) sk(downloads)` for a GSI keyed on the entity's own fields) in the middle, the
//! table and its indexes on the right (`GSI2: GSI2PK / GSI2SK`; a multi-attribute GSI with each
//! key attribute and its type, `GSI1: category (S) / downloads (N)`). Every label has a row of its own, an entity's box spans the rows of its
//! labels (so the entities of one item collection, listed next to each other as the layout lists
//! them, stand side by side), and the lines run horizontally along a label's row to the free
//! column between the labels and the indexes, where they turn towards their index. Text never
//! shares a row and column with other text, whatever the lengths: the column widths come from
//! the longest text in each column, measured by [`text_width`]: [`CHAR_WIDTH`] pixels for an
//! ASCII character of the 12 px monospace font (wider than the 7.2 px the common monospace fonts
//! take), [`WIDE_CHAR_WIDTH`] (the font size) for any other character, twice that for an East
//! Asian Wide or Fullwidth one. Each text is also drawn with its reserved width as its SVG
//! `textLength`, so a browser fits the text to its box (adjusting the letter spacing) whatever
//! font it picks: the drawn text cannot run past the box.
//!
//! Every text element carries the class `label`; the browser test of the examples' design pages
//! measures them (`getBoundingClientRect`) and fails on any two that intersect.

use std::fmt::Write as _;

use super::html::escape;
use crate::schema::{Index, MultiKeyAttr, MultiKeyIndex, TableLayout};

/// The width the layout reserves for one ASCII character of the diagram's font, in pixels.
pub const CHAR_WIDTH: f64 = 7.8;
/// The width the layout reserves for one terminal cell of a non-ASCII character, in pixels: the
/// font size (a fallback font's glyph may be wider than the monospace font's 0.6 em).
pub const WIDE_CHAR_WIDTH: f64 = 12.0;
/// The height of one label row, in pixels (the font is 12 px).
pub const ROW: f64 = 22.0;
const FONT_PX: f64 = 12.0;
const PAD: f64 = 10.0;
const GAP: f64 = 10.0;
const TOP: f64 = 30.0;
const INDEX_SLOT: f64 = 44.0;
const INDEX_BOX: f64 = 28.0;
/// Stroke colours, one per index in [`TableLayout::indexes`] order after the table; indexes past
/// these get a hue of their own ([`colour`]).
const COLOURS: [&str; 8] = ["#1f5fa8", "#b3541e", "#2e7d32", "#7b3fa0", "#a8326e", "#00796b", "#8d6e00", "#455a64"];

/// The stroke colour of the index at `position` (0 = the table): one of [`COLOURS`], then hues
/// 137.5° apart (the golden angle), so no two indexes of a table share a colour.
fn colour(position: usize) -> String {
    match COLOURS.get(position) {
        Some(c) => (*c).to_owned(),
        None => format!("hsl({:.1}, 60%, 36%)", (position - COLOURS.len()) as f64 * 137.5 % 360.0 + 15.0),
    }
}

/// A rectangle in the diagram's coordinates: left, top, width, height in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Rect {
    /// Whether the two rectangles share an area (touching edges do not count).
    pub fn intersects(&self, other: &Rect) -> bool {
        self.x < other.x + other.width
            && other.x < self.x + self.width
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }
}

/// The pairs (by position in `rects`, first < second) of rectangles that intersect.
///
/// ```
/// use dynamo_entity::design::diagram::{Rect, overlaps};
/// let r = |x, y| Rect { x, y, width: 10.0, height: 10.0 };
/// assert_eq!(overlaps(&[r(0.0, 0.0), r(10.0, 0.0), r(5.0, 5.0)]), vec![(0, 2), (1, 2)]);
/// ```
pub fn overlaps(rects: &[Rect]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, a) in rects.iter().enumerate() {
        for (j, b) in rects.iter().enumerate().skip(i + 1) {
            if a.intersects(b) {
                out.push((i, j));
            }
        }
    }
    out
}

/// One text of the diagram and the box the layout reserves for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// The text.
    pub text: String,
    /// Its reserved box.
    pub rect: Rect,
}

/// The diagram: its size, its SVG and every text with its reserved box.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagram {
    /// Width in pixels.
    pub width: f64,
    /// Height in pixels.
    pub height: f64,
    /// The texts, in drawing order.
    pub labels: Vec<Label>,
    /// The `<svg>` element.
    pub svg: String,
}

/// The width the diagram reserves for `text`, in pixels: an upper bound of its drawn width.
///
/// ```
/// use dynamo_entity::design::diagram::text_width;
/// assert_eq!(text_width("GSI1"), 4.0 * 7.8);
/// assert_eq!(text_width("ꙮé"), 2.0 * 12.0); // one cell each, at the font size
/// assert_eq!(text_width("商品"), 4.0 * 12.0); // East Asian Wide: two cells each
/// ```
pub fn text_width(text: &str) -> f64 {
    use unicode_width::UnicodeWidthChar;
    text.chars().map(|c| if c.is_ascii() { CHAR_WIDTH } else { c.width().unwrap_or(1) as f64 * WIDE_CHAR_WIDTH }).sum()
}

impl TableLayout {
    /// The entity-to-index diagram (see the [module documentation](self)).
    pub fn diagram(&self) -> Diagram {
        let names = self.names;
        let indexes = self.ordered_indexes();
        let index_text = |i: Index| match self.multi_gsi(i) {
            Some(g) => format!("{}: {}", names.index_name(i).unwrap_or_default(), multi_index_text(g)),
            None => format!("{}: {} / {}", names.index_name(i).unwrap_or("table"), names.pk_of(i), names.sk_of(i)),
        };
        let colour = |i: Index| colour(indexes.iter().position(|x| *x == i).unwrap_or(0));

        // One edge per key an entity writes, grouped by entity.
        let edges: Vec<Vec<(Index, String)>> = self
            .entities
            .iter()
            .map(|e| {
                std::iter::once(&e.primary)
                    .chain(e.gsis)
                    .chain(&e.inverted)
                    .chain(e.lsis)
                    .map(|ix| {
                        let index = names.index_name(ix.index).unwrap_or("table");
                        (ix.index, format!("{index}: {} / {}", ix.pk.source, ix.sk.source))
                    })
                    .chain(e.multi_gsis.iter().map(|g| {
                        let index = names.index_name(g.index).unwrap_or_default();
                        (g.index, format!("{index}: {}", multi_edge_text(g)))
                    }))
                    .collect()
            })
            .collect();

        let entity_w = self.entities.iter().map(|e| text_width(e.name)).fold(0.0, f64::max) + 2.0 * PAD;
        let label_x = PAD + entity_w + 30.0;
        let label_w = edges.iter().flatten().map(|(_, t)| text_width(t)).fold(0.0, f64::max);
        let turn_x = label_x + label_w + 14.0;
        let index_x = turn_x + 60.0;
        let index_w = indexes.iter().map(|&i| text_width(&index_text(i))).fold(0.0, f64::max) + 2.0 * PAD;
        let width = index_x + index_w + PAD;

        let rows: usize = edges.iter().map(Vec::len).sum();
        let rows_end = TOP + rows as f64 * ROW + self.entities.len().saturating_sub(1) as f64 * GAP;
        let index_slot = INDEX_SLOT.max((rows_end - TOP) / indexes.len() as f64);
        let index_y = |i: Index| TOP + (indexes.iter().position(|x| *x == i).unwrap_or(0) as f64 + 0.5) * index_slot;
        let height = rows_end.max(TOP + indexes.len() as f64 * index_slot) + PAD;

        let mut labels = Vec::new();
        let mut body = String::new();
        let text_rect =
            |x: f64, cy: f64, t: &str| Rect { x, y: cy - ROW / 2.0 + 2.0, width: text_width(t), height: ROW - 4.0 };
        let mut y = TOP;
        for (e, edges) in self.entities.iter().zip(&edges) {
            let top = y;
            let bottom = y + edges.len() as f64 * ROW;
            let cy = (top + bottom) / 2.0;
            let _ = writeln!(
                body,
                r#"<rect class="entity" x="{PAD}" y="{:.1}" width="{entity_w:.1}" height="{:.1}" rx="4"/>"#,
                top + 1.0,
                bottom - top - 2.0
            );
            let name_x = PAD + (entity_w - text_width(e.name)) / 2.0;
            let _ = writeln!(
                body,
                r#"<text class="label entity-name" x="{name_x:.1}" y="{cy:.1}" textLength="{:.1}">{}</text>"#,
                text_width(e.name),
                escape(e.name)
            );
            labels.push(Label { text: e.name.to_owned(), rect: text_rect(name_x, cy, e.name) });
            for (index, text) in edges {
                let row_y = y + ROW / 2.0;
                let stroke = colour(*index);
                let dash = if *index == Index::Primary { "" } else { r#" stroke-dasharray="5 3""# };
                let end_x = label_x + text_width(text) + 4.0;
                let _ = writeln!(
                    body,
                    r#"<path class="edge" d="M{:.1},{row_y:.1} H{:.1} M{end_x:.1},{row_y:.1} H{turn_x:.1} L{index_x:.1},{:.1}" stroke="{stroke}"{dash} marker-end="url(#arrow)"/>"#,
                    PAD + entity_w,
                    label_x - 4.0,
                    index_y(*index)
                );
                let _ = writeln!(
                    body,
                    r#"<text class="label key" x="{label_x:.1}" y="{row_y:.1}" fill="{stroke}" textLength="{:.1}">{}</text>"#,
                    text_width(text),
                    escape(text)
                );
                labels.push(Label { text: text.clone(), rect: text_rect(label_x, row_y, text) });
                y += ROW;
            }
            y += GAP;
        }
        for &i in &indexes {
            let cy = index_y(i);
            let text = index_text(i);
            let _ = writeln!(
                body,
                r#"<rect class="index" x="{index_x:.1}" y="{:.1}" width="{index_w:.1}" height="{INDEX_BOX}" rx="12" stroke="{}"/>"#,
                cy - INDEX_BOX / 2.0,
                colour(i)
            );
            let _ = writeln!(
                body,
                r#"<text class="label index-name" x="{:.1}" y="{cy:.1}" textLength="{:.1}">{}</text>"#,
                index_x + PAD,
                text_width(&text),
                escape(&text)
            );
            labels.push(Label { text: text.clone(), rect: text_rect(index_x + PAD, cy, &text) });
        }
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg class="diagram" xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="entities and the indexes they write">"#
        );
        let _ = writeln!(
            svg,
            r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>"##
        );
        let _ = writeln!(
            svg,
            r##"<style>text {{ font: {FONT_PX}px monospace; dominant-baseline: middle; }} .entity {{ fill: #eef3fa; stroke: #1f5fa8; }} .index {{ fill: #fff8e6; stroke-width: 1.5; }} .edge {{ fill: none; stroke-width: 1.2; }} .entity-name {{ font-weight: bold; }}</style>"##
        );
        svg.push_str(&body);
        svg.push_str("</svg>\n");
        Diagram { width, height, labels, svg }
    }
}

/// A multi-attribute GSI as its index box shows it: each side's attributes with their types,
/// `tenant (S), region (S) / status (S), createdAt (N)`; a GSI without sort key attributes
/// shows its partition key attributes alone.
fn multi_index_text(g: &MultiKeyIndex) -> String {
    let side = |attrs: &[MultiKeyAttr]| {
        attrs.iter().map(|a| format!("{} ({})", a.attribute, a.key_type)).collect::<Vec<_>>().join(", ")
    };
    if g.sk.is_empty() { side(g.pk) } else { format!("{} / {}", side(g.pk), side(g.sk)) }
}

/// An entity's edge to a multi-attribute GSI, in the declaration's words: the fields of each
/// side, `pk(tenant, region) sk(status, created_at)`.
fn multi_edge_text(g: &MultiKeyIndex) -> String {
    let side = |attrs: &[MultiKeyAttr]| attrs.iter().map(|a| a.field).collect::<Vec<_>>().join(", ");
    if g.sk.is_empty() { format!("pk({})", side(g.pk)) } else { format!("pk({}) sk({})", side(g.pk), side(g.sk)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersecting_rectangles_are_found_and_touching_ones_are_not() {
        let r = |x: f64, y: f64, width: f64| Rect { x, y, width, height: 18.0 };
        // Side by side, touching: no overlap.
        assert_eq!(overlaps(&[r(0.0, 0.0, 50.0), r(50.0, 0.0, 50.0)]), Vec::<(usize, usize)>::new());
        // One row above the other: no overlap.
        assert_eq!(overlaps(&[r(0.0, 0.0, 50.0), r(0.0, 18.0, 50.0)]), Vec::<(usize, usize)>::new());
        // The Mermaid failure: one edge label drawn over another.
        assert_eq!(overlaps(&[r(0.0, 0.0, 120.0), r(300.0, 0.0, 10.0), r(80.0, 9.0, 120.0)]), vec![(0, 2)]);
    }

    #[test]
    fn wide_characters_reserve_at_least_the_font_size() {
        // 'ꙮ' measured 10.6 px in Chromium's fallback font; CJK glyphs take 12 px (1 em).
        assert_eq!(text_width("ꙮ"), 12.0);
        assert_eq!(text_width("カ"), 24.0);
        assert_eq!(text_width("Ａ"), 24.0);
        assert_eq!(text_width("#<id>"), 5.0 * 7.8);
        // Combining marks take no cell of their own; the base letter does.
        assert_eq!(text_width("e\u{301}"), 7.8);
    }

    #[test]
    fn every_index_has_a_colour_of_its_own() {
        let colours: Vec<String> = (0..27).map(colour).collect();
        let mut unique = colours.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 27, "{colours:?}");
        assert_eq!(colour(0), "#1f5fa8");
        assert_eq!(colour(8), "hsl(15.0, 60%, 36%)");
    }
}
