//! The examples' design pages (`examples/*/DESIGN.html`) rendered in headless Chromium and
//! checked for what a person sees: every access pattern, every entity and every sample
//! partition key in the rendered text, no script error, console error or blocked fetch (the
//! page's Content-Security-Policy forbids any network access, so a fetch is a reported
//! violation), and no two labels of the diagram overlapping (their `getBoundingClientRect`
//! boxes). A screenshot of each page is written next to it (`DESIGN.png`, not committed).
//!
//! The probe is a script inserted into a copy of the page (the committed page has none): it
//! records errors from the start, and after `load` writes its measurements as JSON into a
//! `<pre id="probe-result">`, which `chromium --dump-dom` prints. The browser is the Debian
//! package `chromium` (`scripts/chromium install`, which `scripts/test` runs), or `CHROMIUM`.
//! Three pages built to fail (overlapping labels, a script error, an image from the network)
//! show that each check can fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dynamo_entity::design::diagram::{Rect, overlaps};
use dynamo_entity::design::html::CONTENT_SECURITY_POLICY;
use dynamo_entity::schema::TableLayout;
use serde_json::Value;

/// The script inserted after the page's Content-Security-Policy.
const PROBE: &str = r#"<script>
(function () {
  var errors = [];
  window.addEventListener('error', function (e) { errors.push('error: ' + e.message); });
  window.addEventListener('securitypolicyviolation', function (e) {
    errors.push('blocked by the Content-Security-Policy: ' + e.violatedDirective + ' ' + e.blockedURI);
  });
  var original = console.error;
  console.error = function () {
    errors.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
    original.apply(console, arguments);
  };
  window.addEventListener('load', function () {
    var labels = Array.prototype.map.call(document.querySelectorAll('svg.diagram text.label'), function (t) {
      var r = t.getBoundingClientRect();
      return { text: t.textContent, x: r.left, y: r.top, width: r.width, height: r.height };
    });
    var svg = document.querySelector('svg.diagram');
    var origin = svg ? svg.getBoundingClientRect() : { left: 0, top: 0 };
    var out = document.createElement('pre');
    out.id = 'probe-result';
    out.textContent = JSON.stringify({
      errors: errors,
      labels: labels,
      diagram: { x: origin.left, y: origin.top },
      text: document.body.innerText,
      height: document.documentElement.scrollHeight,
      scrollWidth: document.documentElement.scrollWidth,
      viewportWidth: document.documentElement.clientWidth
    });
    document.body.appendChild(out);
  });
})();
</script>
"#;

const WIDTH: u32 = 1400;

/// The Chromium binary: `CHROMIUM`, else the one on the `PATH`.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return PathBuf::from(p);
    }
    for dir in std::env::var("PATH").unwrap_or_default().split(':') {
        for name in ["chromium", "chromium-browser"] {
            let p = Path::new(dir).join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!("no chromium found: run `scripts/chromium install` (scripts/test does), or set CHROMIUM");
}

/// A fresh directory under the system's temporary directory.
fn temp_dir(what: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "dynamo-entity-browser-{}-{}-{what}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs headless Chromium on `page` with `extra` arguments and a fresh profile; its stdout.
fn run_chromium(page: &Path, extra: &[String]) -> String {
    let profile = temp_dir("profile");
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).map(|_| out)
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = reader.join().unwrap().unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    assert!(status.success(), "chromium failed ({status}) on {}", page.display());
    out
}

/// What the probe measured in a rendered page.
#[derive(Debug)]
struct Seen {
    errors: Vec<String>,
    labels: Vec<(String, Rect)>,
    /// The top left corner of the diagram's `<svg>` on the page.
    diagram: (f64, f64),
    text: String,
    height: f64,
    /// The page's width (`scrollWidth`) and the viewport's (`clientWidth`).
    width: (f64, f64),
}

/// Renders `html` with the probe and returns its measurements.
fn render(html: &str) -> Seen {
    let csp = format!("content=\"{CONTENT_SECURITY_POLICY}\">");
    assert!(html.contains(&csp), "the page declares its Content-Security-Policy");
    // The policy stays in force; only the probe's inline script is allowed besides.
    let probed =
        html.replacen(&csp, &format!("content=\"{CONTENT_SECURITY_POLICY}; script-src 'unsafe-inline'\">\n{PROBE}"), 1);
    let dir = temp_dir("page");
    let page = dir.join("page.html");
    std::fs::write(&page, probed).unwrap();
    // The width of the screenshot, so the measured height is the screenshot's.
    let dom = run_chromium(&page, &["--dump-dom".to_owned(), format!("--window-size={WIDTH},900")]);
    let _ = std::fs::remove_dir_all(&dir);
    let start = dom.find("<pre id=\"probe-result\">").expect("the probe ran") + "<pre id=\"probe-result\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    let json =
        dom[start..end].replace("&lt;", "<").replace("&gt;", ">").replace("&nbsp;", "\u{a0}").replace("&amp;", "&");
    let v: Value = serde_json::from_str(&json).unwrap();
    let num = |l: &Value, k: &str| l[k].as_f64().unwrap();
    Seen {
        errors: v["errors"].as_array().unwrap().iter().map(|e| e.as_str().unwrap().to_owned()).collect(),
        labels: v["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let rect = Rect { x: num(l, "x"), y: num(l, "y"), width: num(l, "width"), height: num(l, "height") };
                (l["text"].as_str().unwrap().to_owned(), rect)
            })
            .collect(),
        diagram: (num(&v["diagram"], "x"), num(&v["diagram"], "y")),
        text: v["text"].as_str().unwrap().to_owned(),
        height: num(&v, "height"),
        width: (num(&v, "scrollWidth"), num(&v, "viewportWidth")),
    }
}

/// The pairs of overlapping labels, by text.
fn overlapping(seen: &Seen) -> Vec<(String, String)> {
    let rects: Vec<Rect> = seen.labels.iter().map(|(_, r)| *r).collect();
    overlaps(&rects).into_iter().map(|(a, b)| (seen.labels[a].0.clone(), seen.labels[b].0.clone())).collect()
}

/// The width and height in a PNG file's header.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{} is a PNG", path.display());
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

/// Renders the committed page of example `name`, checks what it shows, writes its screenshot
/// next to it, and returns what the browser showed.
fn check_page(name: &str, layout: &TableLayout, current: &str, items: &[dynamo_entity::Item]) -> Seen {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(name);
    let page = folder.join("DESIGN.html");
    let committed = std::fs::read_to_string(&page).unwrap_or_default();
    assert!(
        committed == current,
        "examples/{name}/DESIGN.html is stale: run `cargo run -p dynamo-entity-examples --example {name} -- --design`"
    );
    let seen = render(&committed);
    assert_eq!(seen.errors, Vec::<String>::new(), "{name}: errors while rendering");
    let missing: Vec<String> = layout
        .access_patterns()
        .into_iter()
        .map(|p| p.name)
        .chain(layout.entities().iter().map(|e| e.name.to_owned()))
        .chain(layout.item_collections(items).into_iter().flat_map(|v| v.partitions).map(|p| p.key))
        .filter(|t| !seen.text.contains(t.as_str()))
        .collect();
    assert_eq!(missing, Vec::<String>::new(), "{name}: not visible on the page");
    // Every text of the diagram was laid out by the browser, and none overlaps another.
    let expected: Vec<String> = layout.diagram().labels.into_iter().map(|l| l.text).collect();
    let drawn: Vec<String> = seen.labels.iter().map(|(t, _)| t.clone()).collect();
    assert_eq!(drawn, expected, "{name}: the diagram's labels");
    assert!(seen.labels.iter().all(|(_, r)| r.width > 0.0 && r.height > 0.0), "{name}: every label is drawn");
    assert_eq!(overlapping(&seen), Vec::<(String, String)>::new(), "{name}: overlapping labels");

    let shot = folder.join("DESIGN.png");
    let _ = std::fs::remove_file(&shot);
    let height = (seen.height.ceil() as u32).clamp(600, 16_000);
    run_chromium(&page, &[format!("--screenshot={}", shot.display()), format!("--window-size={WIDTH},{height}")]);
    assert_eq!(png_size(&shot), (WIDTH, height), "{name}: the screenshot {}", shot.display());
    seen
}

/// The texts of the rendered page's diagram labels.
fn drawn_labels(seen: &Seen) -> Vec<&str> {
    seen.labels.iter().map(|(t, _)| t.as_str()).collect()
}

#[test]
fn skill_exchange_design_page_in_chromium() {
    use dynamo_entity_examples::skill_exchange;
    let layout = TableLayout::new(&skill_exchange::schemas()).unwrap();
    let html = skill_exchange::design_html().unwrap();
    let seen = check_page("skill_exchange", &layout, &html, skill_exchange::workbench_model().unwrap().items());
    // GSI1 is keyed on the skills' own attributes: the diagram shows Skill's edge in the words
    // of its declaration and the index with each key attribute and its type, the index view
    // and the key table show them, the matrix lists its query.
    let labels = drawn_labels(&seen);
    assert!(labels.contains(&"GSI1: pk(category) sk(downloads)"), "{labels:?}");
    assert!(labels.contains(&"GSI1: category (S) / downloads (N)"), "{labels:?}");
    assert!(!labels.iter().any(|l| l.contains("GSI1PK") || l.contains("CAT#")), "{labels:?}");
    for shown in [
        "GSI1: category (S) / downloads (N), projection ALL",
        "category = documents (1 item)",
        "Skill::gsi1: one Query on category = documents, returns 1 of 1, 0.5 read units",
        "category\tS\tGSI1 (partition key)",
        "downloads\tN\tGSI1 (sort key)",
        "GSI1 on its attributes category (S) / downloads (N)",
        "Skill::gsi1\tGSI1\tcategory = <category>\tdownloads (N)\tSkill",
    ] {
        assert!(seen.text.contains(shown), "not shown: {shown:?}");
    }
    assert!(!seen.text.contains("GSI1PK") && !seen.text.contains("CAT#"), "a template GSI1 is shown");
}

/// A table with multi-attribute GSIs of two partition and three sort key attributes (GSI6) and
/// of one and one (GSI7) beside a template GSI: the page shows each index's key attributes
/// and their types, and no two labels of the diagram overlap.
#[test]
fn multi_attribute_gsis_on_the_design_page_in_chromium() {
    use dynamo_entity::TableDef;
    let layout = crate::multi_key::Desk::layout().unwrap();
    let items = crate::multi_key::design_samples();
    let seen = render(&layout.html("Desk", &items));
    assert_eq!(seen.errors, Vec::<String>::new());
    let expected: Vec<String> = layout.diagram().labels.into_iter().map(|l| l.text).collect();
    assert_eq!(drawn_labels(&seen), expected.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(seen.labels.iter().all(|(_, r)| r.width > 0.0 && r.height > 0.0), "every label is drawn");
    assert_eq!(overlapping(&seen), Vec::<(String, String)>::new(), "overlapping labels");
    for shown in [
        "GSI6: pk(tenant, region) sk(status, created_at, priority)",
        "GSI6: tenant (S), region (S) / status (S), createdAt (N), priority (N), projection ALL",
        "GSI7: tenant (S) / priority (N), projection KEYS_ONLY",
        "tenant = acme, region = eu (4 items)",
        "Ticket::gsi6: one Query on tenant = acme, region = eu, returns 3 of 4",
        "Alert::gsi6: one Query on tenant = acme, region = eu, returns 1 of 4",
        "open, 95, 9\tAlert\tALERT#",
        "Left out (sparse: a key attribute is absent): Ticket TICKET#t7 / META.",
        "region\tS\tGSI6 (partition key attribute 2 of 2)",
        "createdAt\tN\tGSI6 (sort key attribute 2 of 3)",
        "Ticket::gsi6\tGSI6\ttenant = <tenant> AND region = <region>\tstatus (S), createdAt (N), priority (N)\tTicket\tyes",
    ] {
        assert!(seen.text.contains(shown), "not shown: {shown:?}\n{}", seen.text);
    }
}

#[test]
fn vault_commerce_design_page_in_chromium() {
    use dynamo_entity_examples::vault_commerce;
    let layout = vault_commerce::layout().unwrap();
    let html = vault_commerce::design_html().unwrap();
    check_page("vault_commerce", &layout, &html, vault_commerce::workbench_model().unwrap().items());
}

#[test]
fn orders_design_page_in_chromium() {
    use dynamo_entity_examples::orders;
    let layout = orders::layout().unwrap();
    let html = orders::design_html().unwrap();
    check_page("orders", &layout, &html, orders::workbench_model().unwrap().items());
}

/// A page shaped like the design pages, with `body` inside.
fn page(body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" \
         content=\"{CONTENT_SECURITY_POLICY}\">\n</head><body>{body}</body></html>\n"
    )
}

#[test]
fn overlapping_labels_are_caught() {
    // Two edge labels drawn at the same place, as Mermaid drew Skill Exchange's.
    let seen = render(&page(
        "<svg class=\"diagram\" width=\"400\" height=\"100\"><text class=\"label\" x=\"10\" y=\"40\" \
         font-size=\"12\">SELLER#&lt;seller_id&gt;</text><text class=\"label\" x=\"60\" y=\"44\" \
         font-size=\"12\">PURCHASE#&lt;skill_id&gt;</text><text class=\"label\" x=\"10\" y=\"90\" \
         font-size=\"12\">apart</text></svg>",
    ));
    assert_eq!(seen.errors, Vec::<String>::new());
    assert_eq!(overlapping(&seen), vec![("SELLER#<seller_id>".to_owned(), "PURCHASE#<skill_id>".to_owned())]);
}

#[test]
fn script_errors_and_network_fetches_are_caught() {
    let seen = render(&page("<p>x</p><script>undefinedFunction();</script>"));
    assert_eq!(seen.errors.len(), 1, "{:?}", seen.errors);
    assert!(seen.errors[0].starts_with("error: ") && seen.errors[0].contains("undefinedFunction"), "{:?}", seen.errors);

    let seen = render(&page("<img src=\"http://127.0.0.1:9/logo.png\" alt=\"\">"));
    assert_eq!(
        seen.errors,
        vec!["blocked by the Content-Security-Policy: img-src http://127.0.0.1:9/logo.png".to_owned()]
    );
}

/// Entities whose names and keys are wide: letters a fallback font draws at 10 to 12 px, and
/// East Asian Wide ones that take two cells.
mod wide {
    use dynamo_entity::Entity;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        table = Wide,
        name = "ꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮ",
        pk = "ꙮ#<id>",
        sk = "META",
        gsi1 = "ꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮꙮ#<id>",
        gsi1_sk = "X"
    )]
    pub struct Eye {
        pub id: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        table = Wide,
        name = "商品カテゴリー商品カテゴリー商品カテゴリー",
        pk = "商品#<id>",
        sk = "日本語の並べ替えキー日本語の並べ替えキー#<note>",
        gsi2 = "商品カテゴリー商品カテゴリー商品カテゴリー#<id>",
        gsi2_sk = "Ａ＃Ｂ"
    )]
    pub struct Goods {
        pub id: String,
        pub note: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(table = Wide, pk = "NOTE#<id>", sk = "TEXT#<text>")]
    pub struct Note {
        pub id: String,
        pub text: String,
    }

    #[derive(dynamo_entity::TableDef)]
    #[table(entities(Eye, Goods, Note), gsi1, gsi2)]
    pub struct Wide;
}

#[test]
fn wide_characters_stay_inside_their_reserved_boxes_in_chromium() {
    use dynamo_entity::{Entity, TableDef};
    use wide::{Eye, Goods, Note, Wide};
    let layout = Wide::layout().unwrap();
    let items = vec![
        Eye { id: "ꙮ1".into() }.to_item().unwrap(),
        Goods { id: "g1".into(), note: "メモ".into() }.to_item().unwrap(),
        Note { id: "n1".into(), text: "short".into() }.to_item().unwrap(),
    ];
    let seen = render(&layout.html("ꙮ 商品", &items));
    assert_eq!(seen.errors, Vec::<String>::new());
    let diagram = layout.diagram();
    let drawn: Vec<&str> = seen.labels.iter().map(|(t, _)| t.as_str()).collect();
    let expected: Vec<&str> = diagram.labels.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(drawn, expected);
    assert_eq!(overlapping(&seen), Vec::<(String, String)>::new(), "overlapping labels");
    // Each drawn text within the box the layout reserved for it, up to a pixel: Chromium's box
    // of a text fitted with `textLength` ends up to 0.8 px past it (the last glyph's extent);
    // the texts that overflowed before `textLength` and `unicode-width` overran by 10 to 45 px.
    let (x0, y0) = seen.diagram;
    let outside: Vec<String> = seen
        .labels
        .iter()
        .zip(&diagram.labels)
        .filter(|((_, r), l)| {
            r.x < x0 + l.rect.x - 1.0
                || r.x + r.width > x0 + l.rect.x + l.rect.width + 1.0
                || r.y < y0 + l.rect.y - 1.0
                || r.y + r.height > y0 + l.rect.y + l.rect.height + 1.0
        })
        .map(|((t, r), l)| format!("{t}: drawn {r:?}, reserved {:?} at ({x0}, {y0})", l.rect))
        .collect();
    assert_eq!(outside, Vec::<String>::new(), "text outside its box");
}

#[test]
fn a_long_sort_key_wraps_instead_of_widening_the_page() {
    use dynamo_entity::{Entity, TableDef};
    use wide::{Note, Wide};
    let layout = Wide::layout().unwrap();
    let text = "k".repeat(215);
    let note = Note { id: "n1".into(), text: text.clone() }.to_item().unwrap();
    let sort_key = format!("TEXT#{text}");
    assert_eq!(sort_key.len(), 220);
    let seen = render(&layout.html("Notes", &[note]));
    assert_eq!(seen.errors, Vec::<String>::new());
    assert!(seen.text.contains(&sort_key[..100]), "the key is on the page");
    assert_eq!(seen.width.1, f64::from(WIDTH), "the viewport");
    assert_eq!(seen.width, (f64::from(WIDTH), f64::from(WIDTH)), "the page is as wide as the viewport");
}
