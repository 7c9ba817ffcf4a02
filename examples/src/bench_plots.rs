//! Charts of the benchmarks' ratios for `BENCHMARKS.md`, drawn from the benchmarks' own output.
//!
//! Every benchmark ends its output with a line `ratio name=value name=value ...`, and
//! `BENCHMARKS.md` records those lines, as printed, in the fenced code blocks of each `## `
//! section, each run's line after its label (`run 2 (00:27): ratio ...`, or a label line of its
//! own ending in `:`). [`plots`] reads them back and draws, per section, one SVG bar chart: a
//! group of bars per ratio (the names with `_vs_` or ending in `_ratio`), one bar per run, with
//! the line of parity (1.0) drawn under the text, and each ratio's heading saying which way is
//! better ([`higher_is_better`]). The charts go to `examples/benches/plots/<section>.svg`, and the
//! section gets a reference to its chart under its heading.
//!
//! ```text
//! scripts/bench-plots            # rewrite the charts and the references in BENCHMARKS.md
//! scripts/bench-plots --check    # fail when they are not current
//! ```

use std::fmt::Write as _;

use dynamo_entity::design::html::escape;

/// Where the charts are, relative to the repository root.
pub const PLOTS_DIR: &str = "examples/benches/plots";

/// The alt text every chart reference starts with, so a rerun finds and replaces it.
const ALT: &str = "ratios: ";

/// One run's ratios.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The run's label, such as `run 2 (00:27)`.
    pub label: String,
    /// The ratios, in the order printed.
    pub ratios: Vec<(String, f64)>,
}

/// A `## ` section of `BENCHMARKS.md` with its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// The heading, without `## `.
    pub title: String,
    /// The runs, in the order recorded.
    pub runs: Vec<Run>,
}

impl Section {
    /// The chart's file name: the heading in lowercase, words joined by `-`.
    pub fn file_name(&self) -> String {
        let slug: Vec<String> = self
            .title
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        format!("{}.svg", slug.join("-"))
    }
}

/// Whether `name` is a ratio (not a count such as `pages` or `page_bytes`).
fn is_ratio(name: &str) -> bool {
    name.contains("_vs_") || name.ends_with("_ratio")
}

/// Whether a larger value of the ratio `name` is the better result, as each benchmark defines
/// its ratios: `*_vs_electrodb` is ElectroDB's time over the library's
/// (`examples/benches/electrodb.rs`), and `batch_vs_sequential_puts` and `best_concurrency_ratio`
/// are the sequential puts' time over the batch write's (`batch::measure`): higher is better.
/// All the others are the library's cost over the other side's (time, CPU time, memory or
/// compile time: `*_vs_hand`, `*_vs_serde_dynamo`, `*_vs_page`, `compile_*_vs_serde`): lower
/// is better.
pub fn higher_is_better(name: &str) -> bool {
    name.ends_with("_vs_electrodb") || name == "batch_vs_sequential_puts" || name == "best_concurrency_ratio"
}

/// The `ratio ...` line of a benchmark's output in `line`: the label before it and the ratios.
fn ratio_line(line: &str) -> Option<(String, Vec<(String, f64)>)> {
    let at = if line.starts_with("ratio ") { 0 } else { line.find(": ratio ")? + 2 };
    let label = line[..at].trim().trim_end_matches(':').trim().to_owned();
    let ratios: Vec<(String, f64)> = line[at + "ratio ".len()..]
        .split_whitespace()
        .filter_map(|token| {
            let (name, value) = token.split_once('=')?;
            let value = value.trim_end_matches([')', ',', ';']).parse::<f64>().ok()?;
            is_ratio(name).then(|| (name.to_owned(), value))
        })
        .collect();
    (!ratios.is_empty()).then_some((label, ratios))
}

/// The sections of `markdown` that record `ratio` lines in their code blocks.
pub fn sections(markdown: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut fenced = false;
    let mut last_label = String::new();
    for line in markdown.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            out.push(Section { title: title.trim().to_owned(), runs: Vec::new() });
            continue;
        }
        if line.starts_with("```") {
            fenced = !fenced;
            last_label.clear();
            continue;
        }
        if !fenced {
            continue;
        }
        let Some(section) = out.last_mut() else { continue };
        match ratio_line(line) {
            Some((label, ratios)) => {
                let label = if !label.is_empty() {
                    label
                } else if !last_label.is_empty() {
                    last_label.clone()
                } else {
                    format!("run {}", section.runs.len() + 1)
                };
                section.runs.push(Run { label, ratios });
            }
            None if line.trim_end().ends_with(':') => {
                last_label = line.trim().trim_end_matches(':').trim().to_owned();
            }
            None => {}
        }
    }
    out.retain(|s| !s.runs.is_empty());
    out
}

const CHAR: f64 = 7.0;
const ROW: f64 = 16.0;
const HEAD: f64 = 22.0;
const BAR_AREA: f64 = 420.0;
const MAX_LABEL: usize = 52;

fn short(label: &str) -> String {
    if label.chars().count() > MAX_LABEL {
        format!("{}…", label.chars().take(MAX_LABEL - 1).collect::<String>())
    } else {
        label.to_owned()
    }
}

/// `value` with at most three decimals and no trailing zeros: `1.02`, `16.8`, `7`.
fn number(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// One section's chart: a group of bars per ratio, one bar per run, and the line of parity.
pub fn chart(section: &Section) -> String {
    let mut names: Vec<&str> = Vec::new();
    for r in &section.runs {
        for (n, _) in &r.ratios {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
    }
    let label_w = section.runs.iter().map(|r| short(&r.label).chars().count()).max().unwrap_or(0) as f64 * CHAR + 16.0;
    let max = section.runs.iter().flat_map(|r| r.ratios.iter().map(|(_, v)| *v)).fold(1.0, f64::max) * 1.08;
    let x0 = 10.0 + label_w;
    let scale = |v: f64| v / max * BAR_AREA;
    let width = x0 + BAR_AREA + 60.0;
    let mut body = String::new();
    let mut y = 40.0;
    for name in &names {
        let better = if higher_is_better(name) { "higher is better" } else { "lower is better" };
        let _ = writeln!(
            body,
            r#"<text x="10" y="{:.1}" class="metric">{} <tspan class="better">({better})</tspan></text>"#,
            y + 14.0,
            escape(name)
        );
        y += HEAD;
        for (i, r) in section.runs.iter().enumerate() {
            let Some((_, v)) = r.ratios.iter().find(|(n, _)| n == name) else { continue };
            let w = scale(*v).max(1.0);
            let _ = writeln!(
                body,
                r#"<text x="{:.1}" y="{:.1}" class="run" text-anchor="end">{}</text><rect x="{x0:.1}" y="{:.1}" width="{w:.1}" height="{:.1}" class="c{}"/><text x="{:.1}" y="{:.1}" class="value">{}</text>"#,
                x0 - 6.0,
                y + 12.0,
                escape(&short(&r.label)),
                y + 2.0,
                ROW - 4.0,
                i % 6,
                x0 + w + 4.0,
                y + 12.0,
                number(*v)
            );
            y += ROW;
        }
        y += 6.0;
    }
    let height = y + 10.0;
    let one = x0 + scale(1.0);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="ratios of {}">"#,
        escape(&section.title)
    );
    svg.push_str(
        "<style>text { font: 12px sans-serif; fill: #1d232b; paint-order: stroke; stroke: #ffffff; stroke-width: 3px; \
         stroke-linejoin: round; } .better { font-weight: normal; font-family: sans-serif; fill: #52606d; } .metric { font-weight: bold; font-family: monospace; } \
         .value, .run { font-size: 11px; } .c0 { fill: #1f5fa8; } .c1 { fill: #b3541e; } .c2 { fill: #2e7d32; } \
         .c3 { fill: #7b3fa0; } .c4 { fill: #a8326e; } .c5 { fill: #00796b; }</style>\n",
    );
    let _ = writeln!(svg, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    // The line of parity first, so every text is drawn over it (with a white outline).
    let _ = writeln!(
        svg,
        r##"<line x1="{one:.1}" y1="30" x2="{one:.1}" y2="{:.1}" stroke="#555" stroke-dasharray="4 3"/>"##,
        height - 6.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="10" y="20" class="metric">{}: ratios (the dashed line is 1.0)</text>"#,
        escape(&section.title)
    );
    svg.push_str(&body);
    svg.push_str("</svg>\n");
    svg
}

/// `markdown` with a chart reference under each heading of a section that records ratios, and
/// the charts: each one's path relative to the repository root and its SVG.
pub fn plots(markdown: &str) -> (String, Vec<(String, String)>) {
    let sections = sections(markdown);
    let files: Vec<(String, String)> =
        sections.iter().map(|s| (format!("{PLOTS_DIR}/{}", s.file_name()), chart(s))).collect();
    let mut out = String::with_capacity(markdown.len() + 512);
    let mut lines = markdown.lines().peekable();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        let Some(title) = line.strip_prefix("## ") else { continue };
        let Some(section) = sections.iter().find(|s| s.title == title.trim()) else { continue };
        // Drop an earlier reference (and its blank line) under this heading.
        if lines.peek() == Some(&"") {
            let mut ahead = lines.clone();
            ahead.next();
            if ahead.peek().is_some_and(|l| l.starts_with(&format!("![{ALT}"))) {
                lines.next();
                lines.next();
            }
        }
        let _ = write!(out, "\n![{ALT}{}]({PLOTS_DIR}/{})\n", section.title, section.file_name());
    }
    (out, files)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# Benchmarks\n\n## Marshalling\n\nText with `ratio a_vs_b=9` in prose.\n\n```\n\
                       run A (--quick, 22:10):\nratio encode_vs_hand=1.021 pages=28 best_concurrency_ratio=7.66\n\
                       run 2 (00:27): ratio encode_vs_hand=1.024 decode_vs_hand=1.015\n```\n\n\
                       ## No ratios\n\ntext\n\n## ElectroDB\n\n```\nratio put_vs_electrodb=16.8   (floor put_direct_vs_electrodb=17.3)\n```\n";

    #[test]
    fn ratio_lines_are_read_from_code_blocks_with_their_labels() {
        let s = sections(DOC);
        assert_eq!(
            s,
            vec![
                Section {
                    title: "Marshalling".into(),
                    runs: vec![
                        Run {
                            label: "run A (--quick, 22:10)".into(),
                            ratios: vec![("encode_vs_hand".into(), 1.021), ("best_concurrency_ratio".into(), 7.66)],
                        },
                        Run {
                            label: "run 2 (00:27)".into(),
                            ratios: vec![("encode_vs_hand".into(), 1.024), ("decode_vs_hand".into(), 1.015)],
                        },
                    ],
                },
                Section {
                    title: "ElectroDB".into(),
                    runs: vec![Run {
                        label: "run 1".into(),
                        ratios: vec![("put_vs_electrodb".into(), 16.8), ("put_direct_vs_electrodb".into(), 17.3)],
                    }],
                },
            ]
        );
        assert_eq!(s[0].file_name(), "marshalling.svg");
    }

    #[test]
    fn references_are_inserted_once_under_the_headings() {
        let (md, files) = plots(DOC);
        assert!(
            md.contains("## Marshalling\n\n![ratios: Marshalling](examples/benches/plots/marshalling.svg)\n\nText")
        );
        assert!(md.contains("## ElectroDB\n\n![ratios: ElectroDB](examples/benches/plots/electrodb.svg)\n\n```"));
        assert!(md.contains("## No ratios\n\ntext"));
        let (again, files_again) = plots(&md);
        assert_eq!(again, md, "a second run changes nothing");
        assert_eq!(files_again, files);
        assert_eq!(
            files.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
            ["examples/benches/plots/marshalling.svg", "examples/benches/plots/electrodb.svg"]
        );
        let svg = &files[0].1;
        assert!(svg.contains(r#"class="run" text-anchor="end">run A (--quick, 22:10)</text>"#), "{svg}");
        assert!(svg.contains(r#"class="value">1.021</text>"#));
        assert!(svg.contains(r#"class="value">7.66</text>"#));
        assert_eq!(svg.matches("<rect x=").count(), 4, "one bar per run and ratio");
        // The dashed line lies under every text, and each ratio says which way is better.
        assert!(svg.find("<line ").unwrap() < svg.find("<text ").unwrap(), "{svg}");
        assert!(svg.contains(r#"class="metric">encode_vs_hand <tspan class="better">(lower is better)</tspan>"#));
        assert!(
            svg.contains(r#"class="metric">best_concurrency_ratio <tspan class="better">(higher is better)</tspan>"#)
        );
        assert!(files[1].1.contains(r#"put_vs_electrodb <tspan class="better">(higher is better)</tspan>"#));
    }

    #[test]
    fn the_direction_of_each_recorded_ratio() {
        for lower in [
            "cpu_vs_hand",
            "put_cpu_vs_hand",
            "collection_vs_serde_dynamo",
            "stream_vs_page",
            "compile_entity_vs_serde",
        ] {
            assert!(!higher_is_better(lower), "{lower}");
        }
        for higher in ["put_vs_electrodb", "decode_vs_electrodb", "batch_vs_sequential_puts", "best_concurrency_ratio"]
        {
            assert!(higher_is_better(higher), "{higher}");
        }
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(number(1.0), "1");
        assert_eq!(number(16.8), "16.8");
        assert_eq!(number(1.0244), "1.024");
    }
}
