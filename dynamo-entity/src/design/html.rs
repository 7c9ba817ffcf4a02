//! The design page: one self-contained HTML document per table, drawn from its entities and
//! sample items, for reviewing a single-table design by looking at it.
//!
//! ```
//! use dynamo_entity::design::workbench::WorkbenchModel;
//! use dynamo_entity::schema::TableLayout;
//! use dynamo_entity::{Entity, Timestamp};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "USER#<id>", sk = "PROFILE")]
//! struct User {
//!     id: String,
//!     name: String,
//! }
//!
//! # fn main() -> dynamo_entity::Result<()> {
//! let layout = TableLayout::new(&[User::schema()])?;
//! let model = WorkbenchModel::new("Users", "users")
//!     .dated(Timestamp::EPOCH)
//!     .sample(&User { id: "u1".into(), name: "Ann & Bo".into() })?;
//! let page = layout.html("Users", model.items()); // write it to DESIGN.html
//! assert!(page.contains("<h1>Users: table design</h1>"));
//! assert!(page.contains("name=&quot;Ann &amp; Bo&quot;"));
//! # Ok(())
//! # }
//! ```
//!
//! The page holds, in order:
//!
//! 1. the access-pattern matrix ([`TableLayout::access_patterns`]) with the capacity of each
//!    pattern's largest sample answer (items, bytes, read units of one eventually consistent
//!    `Query`; for a write-sharded key also the whole answer's, one `Query` per shard);
//! 2. the entity-to-index diagram ([`TableLayout::diagram`]), inline SVG whose labels cannot
//!    overlap;
//! 3. the item collections of the table and the index views ([`TableLayout::item_collections`]):
//!    each partition key value with its items in sort-key order, their entity, keys and first
//!    attributes, and the access patterns that read the collection (a multi-attribute GSI's
//!    view is headed by its key attributes with their types, `category (S) / downloads (N)`,
//!    and each of its partitions by the partition key attributes' values, `category = data`);
//! 4. the key attributes with the indexes they key (a multi-attribute GSI's with their place
//!    in its key, `GSI6 (partition key attribute 2 of 2)`) and the entities' key templates and
//!    multi-attribute GSIs;
//! 5. the lint findings ([`TableLayout::lint`]), their Markdown code spans as `<code>`.
//!
//! The page needs no network and runs no script: the styles are inline, and a
//! `Content-Security-Policy` of `default-src 'none'; style-src 'unsafe-inline'` keeps a browser
//! from fetching anything. Every text taken from the design (title, names, templates, sample
//! values) is HTML-escaped ([`escape`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;

use super::views::{IndexView, PartitionView};
use crate::schema::{Index, Item, MultiKeyAttr, TableLayout};

/// The page's `Content-Security-Policy`: nothing is fetched and no script runs.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'";

/// How many attributes of each item the views show.
const SHOWN_ATTRIBUTES: usize = 3;
/// How many characters of a string value the views show.
const SHOWN_CHARS: usize = 28;

/// `text` with `&`, `<`, `>`, `"` and `'` written as character references, safe inside an HTML
/// or SVG element and inside a quoted attribute value.
///
/// ```
/// use dynamo_entity::design::html::escape;
/// assert_eq!(escape(r#"<b title="x">Tom & Jerry's</b>"#), "&lt;b title=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/b&gt;");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1d232b; }
h1 { font-size: 24px; } h2 { font-size: 19px; margin-top: 32px; border-bottom: 1px solid #ccd3dc; } h3 { font-size: 16px; }
code, .key, td.mono { font-family: monospace; font-size: 12.5px; }
td.mono, th.pk, td code { overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #ccd3dc; padding: 3px 8px; text-align: left; vertical-align: top; }
thead th { background: #eef1f5; }
tbody.partition th.pk { background: #e6eef9; font-family: monospace; font-size: 13px; }
tbody.partition th.pk .count { font-family: system-ui, sans-serif; font-weight: normal; color: #52606d; }
ul.reads { margin: 2px 0 0; padding-left: 18px; font-weight: normal; font-family: system-ui, sans-serif; font-size: 13px; }
ul.reads li::marker { content: '\\25B8  '; color: #1f5fa8; }
.entity-type { font-weight: 600; }
.absent { color: #52606d; }
.lint { color: #8a3b00; }
.lint.error { color: #a61b1b; }
.lint.advice { color: #3d4f63; }
.none { color: #52606d; font-style: italic; }
nav a { margin-right: 12px; }
.diagram-box { overflow-x: auto; }
";

impl TableLayout {
    /// The roles of attribute `a` in the multi-attribute GSIs: `GSI1 (partition key)`, or with
    /// several attributes on one side `GSI6 (partition key attribute 2 of 2)`.
    fn multi_key_roles(&self, a: &str) -> Vec<String> {
        let mut out = Vec::new();
        for g in &self.multi_gsis {
            for (attrs, role) in [(g.pk, "partition key"), (g.sk, "sort key")] {
                if let Some(at) = attrs.iter().position(|k| k.attribute == a) {
                    let index = self.names.index_name(g.index).unwrap_or_default();
                    out.push(if attrs.len() == 1 {
                        format!("{index} ({role})")
                    } else {
                        format!("{index} ({role} attribute {} of {})", at + 1, attrs.len())
                    });
                }
            }
        }
        out
    }

    /// The design page of the table named `title` with the sample items `items` (as stored;
    /// see the [module documentation](self)): a complete HTML document.
    pub fn html(&self, title: &str, items: &[Item]) -> String {
        let names = self.names;
        let index_name = |i: Index| names.index_name(i).unwrap_or("table");
        let views = self.item_collections(items);
        let patterns = self.access_patterns();
        let t = escape(title);
        let mut h = String::new();
        let _ = write!(
            h,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{t}: table design</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n"
        );
        let _ = writeln!(h, "<h1>{t}: table design</h1>");
        let _ = writeln!(
            h,
            "<p>Generated by <code>dynamo_entity::design::TableLayout::html</code> from the entities and {} sample \
             items; do not edit.</p>",
            items.len()
        );
        h.push_str(
            "<nav><a href=\"#patterns\">Access patterns</a><a href=\"#diagram\">Diagram</a>\
             <a href=\"#collections\">Item collections</a><a href=\"#indexes\">Index views</a>\
             <a href=\"#keys\">Keys</a><a href=\"#lint\">Lint</a></nav>\n",
        );

        // 1. Access patterns, with the capacity of their largest sample answer.
        // (sample partitions, returned, bytes, read units, queries, whole answer's read units)
        let mut largest: BTreeMap<&str, (usize, usize, usize, f64, u16, f64)> = BTreeMap::new();
        for v in &views {
            for p in &v.partitions {
                for r in &p.reads {
                    let e = largest.entry(r.pattern.as_str()).or_insert((0, 0, 0, 0.0, r.queries, 0.0));
                    e.0 += 1;
                    if r.bytes > e.2 || e.0 == 1 {
                        e.1 = r.returned;
                        e.2 = r.bytes;
                        e.3 = r.read_units;
                    }
                    e.5 = e.5.max(r.answer_read_units);
                }
            }
        }
        h.push_str(
            "<section id=\"patterns\">\n<h2>Access patterns</h2>\n<table class=\"matrix\">\n<thead><tr><th>query</th>\
             <th>index</th><th>key condition</th><th>sorted by</th><th>returns</th><th>sparse</th>\
             <th>sample partitions</th><th>largest sample answer</th><th>read units per Query</th></tr></thead>\n<tbody>\n",
        );
        for p in &patterns {
            let (partitions, answer, units) = match largest.get(p.name.as_str()) {
                Some(&(n, items, bytes, rcu, queries, answer)) => {
                    let per = if queries > 1 {
                        format!(
                            " (one of {queries} shard Queries); whole answer: {queries} Queries, {answer} read units"
                        )
                    } else {
                        String::new()
                    };
                    (n.to_string(), format!("{}, {bytes} bytes", plural(items, "item")), format!("{rcu}{per}"))
                }
                None => ("0".to_owned(), "<span class=\"none\">no sample</span>".to_owned(), String::new()),
            };
            let _ = writeln!(
                h,
                "<tr class=\"pattern\"><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td>{}</td>\
                 <td>{}</td><td>{}</td><td>{partitions}</td><td>{answer}</td><td>{units}</td></tr>",
                escape(&p.name),
                escape(index_name(p.index)),
                escape(&p.partition),
                escape(&p.sort.replace('`', "")),
                escape(&p.returns.join(", ")),
                if p.sparse { "yes" } else { "" }
            );
        }
        h.push_str(
            "</tbody>\n</table>\n<p>Read units: one eventually consistent <code>Query</code> on the sample partition \
             with the most bytes read (0.5 units per 4 KB, rounded up once); for a write-sharded key, also the \
             largest whole answer: one <code>Query</code> per shard, each at least 0.5 units.</p>\n</section>\n",
        );

        // 2. The diagram.
        let diagram = self.diagram();
        let _ = write!(
            h,
            "<section id=\"diagram\">\n<h2>Entities and indexes</h2>\n<p>Each entity with the keys it writes: \
             solid lines to the table, dashed lines to secondary indexes.</p>\n<div class=\"diagram-box\">\n{}</div>\n</section>\n",
            diagram.svg
        );

        // 3. Item collections (the table) and index views.
        let mut views = views.into_iter();
        if let Some(table) = views.next() {
            h.push_str("<section id=\"collections\">\n<h2>Item collections</h2>\n");
            write_view(&mut h, &table);
            h.push_str("</section>\n");
        }
        h.push_str("<section id=\"indexes\">\n<h2>Index views</h2>\n");
        let mut any = false;
        for v in views {
            any = true;
            write_view(&mut h, &v);
        }
        if !any {
            h.push_str("<p class=\"none\">The table has no secondary index.</p>\n");
        }
        h.push_str("</section>\n");

        // 4. Keys.
        h.push_str(
            "<section id=\"keys\">\n<h2>Key attributes</h2>\n<table>\n<thead><tr><th>attribute</th><th>type</th>\
             <th>key of</th></tr></thead>\n<tbody>\n",
        );
        for a in self.key_attributes() {
            let of: Vec<String> = std::iter::once(Index::Primary)
                .chain(self.indexes())
                .filter_map(|i| {
                    let role = if names.pk_of(i) == a {
                        "partition key"
                    } else if names.sk_of(i) == a {
                        "sort key"
                    } else {
                        return None;
                    };
                    Some(format!("{} ({role})", index_name(i)))
                })
                .chain(self.multi_key_roles(a))
                .collect();
            let _ = writeln!(
                h,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                escape(a),
                self.key_type(a),
                escape(&of.join(", "))
            );
        }
        h.push_str("</tbody>\n</table>\n");
        if let Some(ttl) = self.ttl {
            let _ = writeln!(h, "<p>Time to live: <code>{}</code> (epoch seconds).</p>", escape(ttl));
        }
        let _ = write!(
            h,
            "<table class=\"entities\">\n<thead><tr><th>entity</th><th>{}</th><th>{}</th><th>secondary indexes</th></tr></thead>\n<tbody>\n",
            escape(names.pk),
            escape(names.sk)
        );
        for e in &self.entities {
            let secondary: Vec<String> = e
                .gsis
                .iter()
                .chain(&e.inverted)
                .chain(e.lsis)
                .map(|g| {
                    format!(
                        "{} <code>{}</code> / <code>{}</code>",
                        escape(index_name(g.index)),
                        escape(g.pk.source),
                        escape(g.sk.source)
                    )
                })
                .chain(e.multi_gsis.iter().map(|g| {
                    let side = |attrs: &[MultiKeyAttr]| {
                        let list: Vec<String> = attrs
                            .iter()
                            .map(|a| format!("<code>{}</code> ({})", escape(a.attribute), a.key_type))
                            .collect();
                        list.join(", ")
                    };
                    let sk = if g.sk.is_empty() { String::new() } else { format!(" / {}", side(g.sk)) };
                    format!("{} on its attributes {}{sk}", escape(index_name(g.index)), side(g.pk))
                }))
                .collect();
            let _ = writeln!(
                h,
                "<tr class=\"entity\"><td class=\"entity-type\">{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>",
                escape(e.name),
                escape(e.primary.pk.source),
                escape(e.primary.sk.source),
                secondary.join("<br>")
            );
        }
        h.push_str("</tbody>\n</table>\n</section>\n");

        // 5. Lint.
        h.push_str("<section id=\"lint\">\n<h2>Lint findings</h2>\n");
        let lints = self.lint();
        if lints.is_empty() {
            h.push_str("<p class=\"none\">No findings.</p>\n");
        } else {
            h.push_str("<ul>\n");
            for l in lints {
                let _ = writeln!(
                    h,
                    "<li class=\"lint {severity}\"><strong>{severity}: {}</strong> {} {}: {}</li>",
                    escape(&l.kind.to_string()),
                    escape(l.entity),
                    escape(index_name(l.index)),
                    code_spans(&l.message),
                    severity = l.severity(),
                );
            }
            h.push_str("</ul>\n");
        }
        h.push_str("</section>\n</body>\n</html>\n");
        h
    }
}

/// One index's item collections as a table: a header row per partition (its key, item count
/// and the access patterns that read it), then its items.
fn write_view(h: &mut String, v: &IndexView) {
    let secondary = v.index != Index::Primary;
    let _ = writeln!(
        h,
        "<h3 id=\"view-{}\">{}: <code>{}</code> / <code>{}</code>{}</h3>",
        escape(&v.name.to_ascii_lowercase()),
        escape(v.name),
        escape(&v.partition_key),
        escape(&v.sort_key),
        if secondary { format!(", projection {}", v.projection.projection_type()) } else { String::new() }
    );
    if secondary {
        let _ = writeln!(h, "<p>Written by: {}.</p>", escape(&v.entities.join(", ")));
    }
    if v.partitions.is_empty() {
        h.push_str("<p class=\"none\">No sample item is in this index.</p>\n");
    } else {
        let columns = if secondary { 5 } else { 4 };
        let _ = write!(
            h,
            "<table class=\"collection\">\n<thead><tr><th>{}</th><th>entity</th>{}<th>attributes</th><th>bytes</th></tr></thead>\n",
            escape(&v.sort_key),
            if secondary { "<th>table key</th>" } else { "" }
        );
        for p in &v.partitions {
            write_partition(h, p, columns, secondary);
        }
        h.push_str("</table>\n");
    }
    if !v.absent.is_empty() {
        let listed: Vec<String> =
            v.absent.iter().map(|(e, k)| format!("{} <code>{}</code>", escape(e), escape(k))).collect();
        let _ =
            writeln!(h, "<p class=\"absent\">Left out (sparse: a key attribute is absent): {}.</p>", listed.join(", "));
    }
}

fn write_partition(h: &mut String, p: &PartitionView, columns: usize, secondary: bool) {
    let count = plural(p.items.len(), "item");
    let _ = write!(
        h,
        "<tbody class=\"partition\"><tr><th class=\"pk\" colspan=\"{columns}\">{} <span class=\"count\">({count})</span>",
        escape(&p.key)
    );
    if !p.reads.is_empty() {
        h.push_str("<ul class=\"reads\">");
        for r in &p.reads {
            let queries = if r.queries > 1 {
                format!("one of {} Queries (one per shard) on", r.queries)
            } else {
                "one Query on".to_owned()
            };
            let dropped = if r.read > r.returned {
                format!(", reads {} and drops {}", r.read, r.read - r.returned)
            } else {
                String::new()
            };
            let answer = if r.queries > 1 {
                format!(
                    "; the whole answer: {} Queries, returns {}, {} read units",
                    r.queries,
                    plural(r.answer_returned, "item"),
                    r.answer_read_units
                )
            } else {
                String::new()
            };
            let _ = write!(
                h,
                "<li><code>{}</code>: {queries} <code>{}</code>, returns {} of {}{dropped}, {} read units{answer}</li>",
                escape(&r.pattern),
                escape(&p.key),
                r.returned,
                p.items.len(),
                r.read_units
            );
        }
        h.push_str("</ul>");
    }
    h.push_str("</th></tr>\n");
    for i in &p.items {
        let attributes: Vec<String> = i
            .attributes
            .iter()
            .take(SHOWN_ATTRIBUTES)
            .map(|(a, v)| format!("{}={}", escape(a), escape(&short_value(v))))
            .collect();
        let more = i.attributes.len().saturating_sub(SHOWN_ATTRIBUTES);
        let more = if more > 0 { format!(" <span class=\"none\">+{more}</span>") } else { String::new() };
        let _ = writeln!(
            h,
            "<tr class=\"item\"><td class=\"mono\">{}</td><td class=\"entity-type\">{}</td>{}<td class=\"mono\">{}{more}</td><td>{}</td></tr>",
            escape(&i.sort_key),
            escape(&i.entity),
            if secondary { format!("<td class=\"mono\">{}</td>", escape(&i.table_key)) } else { String::new() },
            attributes.join(" "),
            i.size
        );
    }
    h.push_str("</tbody>\n");
}

/// `text` HTML-escaped, with each Markdown code span (text between a pair of backticks) as a
/// `<code>` element; an unpaired backtick stays as it is.
fn code_spans(text: &str) -> String {
    let pieces: Vec<&str> = text.split('`').collect();
    let mut out = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        let paired = i % 2 == 1 && i + 1 < pieces.len();
        if paired {
            let _ = write!(out, "<code>{}</code>", escape(piece));
        } else {
            if i > 0 && i % 2 == 1 {
                out.push('`');
            }
            out.push_str(&escape(piece));
        }
    }
    out
}

/// `1 item`, `2 items`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// A short text of a value for the views: a string quoted and cut at [`SHOWN_CHARS`]
/// characters, a number as stored, `true`/`false`, `null`, and the size of the others
/// (`[3]`, `{2}`, `<5 bytes>`).
fn short_value(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) if s.chars().count() > SHOWN_CHARS => {
            format!("\"{}…\"", s.chars().take(SHOWN_CHARS).collect::<String>())
        }
        AttributeValue::S(s) => format!("\"{s}\""),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::Bool(b) => b.to_string(),
        AttributeValue::Null(_) => "null".to_owned(),
        AttributeValue::B(b) => format!("<{} bytes>", b.as_ref().len()),
        AttributeValue::L(l) => format!("[{}]", l.len()),
        AttributeValue::M(m) => format!("{{{}}}", m.len()),
        AttributeValue::Ss(s) => format!("<<{} strings>>", s.len()),
        AttributeValue::Ns(s) => format!("<<{} numbers>>", s.len()),
        AttributeValue::Bs(s) => format!("<<{} binaries>>", s.len()),
        _ => "?".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values() {
        use AttributeValue as V;
        assert_eq!(short_value(&V::S("a\"b".into())), "\"a\"b\"");
        assert_eq!(short_value(&V::S("x".repeat(30))), format!("\"{}…\"", "x".repeat(28)));
        assert_eq!(short_value(&V::N("-1.5".into())), "-1.5");
        assert_eq!(short_value(&V::L(vec![V::Bool(true); 3])), "[3]");
        assert_eq!(short_value(&V::Ss(vec!["a".into()])), "<<1 strings>>");
        assert_eq!(escape(&short_value(&V::S("</td><script>".into()))), "&quot;&lt;/td&gt;&lt;script&gt;&quot;");
    }

    #[test]
    fn markdown_code_spans_become_code_elements() {
        assert_eq!(code_spans("use `Skill::gsi4` or `<a>`"), "use <code>Skill::gsi4</code> or <code>&lt;a&gt;</code>");
        assert_eq!(code_spans("no spans & more"), "no spans &amp; more");
        assert_eq!(code_spans("one ` left `a` x ` y"), "one <code> left </code>a<code> x </code> y");
        assert_eq!(code_spans("`a` and ` b"), "<code>a</code> and ` b");
    }
}
