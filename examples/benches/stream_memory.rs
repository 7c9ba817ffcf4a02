//! Memory of streaming one partition: 100,000 items of one item collection read through
//! `QueryRequest::stream()`, against the memory of holding one page.
//!
//! The parent process writes 100,000 reviews of one skill (`PK = SKILL#<id>`, about 230 bytes
//! each as DynamoDB counts them, so a 1 MB `Query` page holds about 4,500) to DynamoDB Local,
//! then runs three fresh child processes of this same binary, each measuring the growth of its
//! peak resident memory (`VmHWM` in `/proc/self/status`, reset to the current resident size by
//! writing `5` to `/proc/self/clear_refs` once the client is set up) while it:
//!
//! * `page`: reads the first page with `send()` and holds it;
//! * `stream`: reads every item through `stream()`, checking each one's order and counting;
//! * `all`: collects every item with `all()`, the contrast that shows what holding everything
//!   costs (and that the measurement sees it).
//!
//! The last line is `ratio stream_vs_page=A all_vs_page=B page_bytes=C pages=D`: the stream's
//! peak growth over one held page's, the same for `all()`, the first page's size as DynamoDB
//! counts it (bytes) and the number of pages read. "At most two pages in memory" is
//! `stream_vs_page <= 2`.
//!
//! Uses `DYNAMODB_ENDPOINT` when set, otherwise starts DynamoDB Local. Linux only (`/proc`).
//!
//! `cargo bench -p dynamo-entity-examples --bench stream_memory` (100,000 items, about a
//! minute); `-- --quick` streams 15,000 items (about four pages).

use std::process::Command;

use dynamo_entity::{Entity, Table, Timestamp};
use dynamo_entity_examples::skill_exchange::{Review, Skill, SkillId, SkillStatus, UserId};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
use futures::{StreamExt, TryStreamExt};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SKILL: &str = "s-stream";

fn review(i: u32) -> Review {
    Review {
        skill_id: SkillId(SKILL.to_owned()),
        id: i + 1,
        author_id: UserId(format!("u{:06}", i % 100_000)),
        rating: 1 + (i % 5) as u8,
        body: format!("Review {i}: {}", "useful for summarizing long reports, and quick. ".repeat(3)),
        created_at: Timestamp::from_millis(1_767_225_600_000 + i as i64).unwrap_or(Timestamp::EPOCH),
    }
}

/// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`).
fn status_bytes(field: &str) -> Res<u64> {
    let text = std::fs::read_to_string("/proc/self/status")?;
    let line = text
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))
        .ok_or_else(|| format!("no {field} in /proc/self/status"))?;
    let kb: u64 = line[field.len() + 1..].trim().trim_end_matches("kB").trim().parse()?;
    Ok(kb * 1024)
}

/// A child: measures one way of reading the partition and prints `growth=<bytes> items=<n>
/// page_bytes=<bytes> reset=<bool>`.
fn child(mode: &str, table: &str, n: usize) -> Res<()> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let table = Table::new(LocalDynamoDb::shared().await?.client(), table);
        let query = || table.query(Review::query(&SkillId(SKILL.to_owned())));
        // Set up the client and its connection before the baseline.
        let first = query().max_items(1).send().await?;
        assert_eq!(first.items.len(), 1);
        drop(first);

        let baseline = status_bytes("VmRSS")?;
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        let baseline = if reset { baseline } else { status_bytes("VmHWM")? };
        let (items, page_bytes, keep) = match mode {
            "page" => {
                let page = query().send().await?;
                let bytes: usize = page
                    .items
                    .iter()
                    .map(|r| r.to_item().map(|i| dynamo_entity::value::size::item_size(&i)))
                    .sum::<Result<usize, _>>()?;
                (page.items.len(), bytes, page.items)
            }
            "stream" => {
                let mut count = 0usize;
                let mut stream = std::pin::pin!(query().stream());
                while let Some(r) = stream.next().await {
                    let r = r?;
                    count += 1;
                    assert_eq!(r.id as usize, count, "items out of order");
                }
                (count, 0, Vec::new())
            }
            "all" => {
                let all: Vec<Review> = query().stream().try_collect().await?;
                (all.len(), 0, all)
            }
            _ => return Err(format!("no mode {mode}").into()),
        };
        let peak = status_bytes("VmHWM")?;
        if mode != "page" {
            assert_eq!(items, n, "{mode}: every item read");
        }
        println!("growth={} items={items} page_bytes={page_bytes} reset={reset}", peak.saturating_sub(baseline));
        drop(keep);
        Ok(())
    })
}

/// Runs a child and parses its line.
fn run_child(mode: &str, endpoint: &str, table: &str, n: usize) -> Res<(u64, usize, usize, bool)> {
    let out = Command::new(std::env::current_exe()?)
        .args(["--child", mode, table, &n.to_string()])
        .env("DYNAMODB_ENDPOINT", endpoint)
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("child {mode} failed: {text}{}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let line = text.lines().last().ok_or("child printed nothing")?;
    let field = |k: &str| -> Res<String> {
        Ok(line
            .split_whitespace()
            .find_map(|w| w.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
            .ok_or_else(|| format!("no {k} in `{line}`"))?
            .to_owned())
    };
    Ok((field("growth")?.parse()?, field("items")?.parse()?, field("page_bytes")?.parse()?, field("reset")? == "true"))
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let (mode, table, n) = (&args[i + 1], &args[i + 2], args[i + 3].parse()?);
        return child(mode, table, n);
    }
    let quick = args.iter().any(|a| a == "--quick" || a == "--test");
    let n: u32 = if quick { 15_000 } else { 100_000 };

    let rt = tokio::runtime::Runtime::new()?;
    let (endpoint, table) = rt.block_on(async {
        let server = LocalDynamoDb::shared().await?;
        let table = Table::new(server.client(), unique_table_name("bench-stream"));
        table.create_table(&[Skill::schema(), Review::schema()]).await?;
        // The skill itself, so the partition is a real item collection; the review query
        // skips it by its entity type.
        let skill = Skill {
            id: SkillId(SKILL.to_owned()),
            title: "Streamed".to_owned(),
            category: "documents".to_owned(),
            seller_id: UserId("u0".to_owned()),
            status: SkillStatus::Approved,
            downloads: 0,
            price_cents: 100,
            created_at: Timestamp::EPOCH,
            submitted_at: None,
            seller_verified: false,
            tags: Vec::new(),
        };
        table.put(&skill).await?;
        for chunk in (0..n).collect::<Vec<_>>().chunks(10_000) {
            let reviews: Vec<Review> = chunk.iter().map(|&i| review(i)).collect();
            table.batch_put(&reviews).await?.check()?;
        }
        Res::Ok((server.endpoint().to_owned(), table))
    })?;
    println!("wrote {n} reviews to one partition of {}", table.name());

    let result = (|| -> Res<()> {
        let (page, page_items, page_bytes, reset) = run_child("page", &endpoint, table.name(), n as usize)?;
        let (stream, ..) = run_child("stream", &endpoint, table.name(), n as usize)?;
        let (all, ..) = run_child("all", &endpoint, table.name(), n as usize)?;
        if !reset {
            println!("note: /proc/self/clear_refs could not reset VmHWM; growth is measured from the earlier peak");
        }
        let pages = (n as usize).div_ceil(page_items.max(1));
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        println!(
            "one page: {page_items} items, {page_bytes} bytes as DynamoDB counts them; peak growth holding it {:.1} MiB",
            mib(page)
        );
        println!("stream() of {n} items ({pages} pages): peak growth {:.1} MiB", mib(stream));
        println!("all() of {n} items: peak growth {:.1} MiB", mib(all));
        println!(
            "ratio stream_vs_page={:.2} all_vs_page={:.2} page_bytes={page_bytes} pages={pages}",
            stream as f64 / page as f64,
            all as f64 / page as f64
        );
        Ok(())
    })();
    rt.block_on(async {
        let _ = table.delete_table().await;
    });
    result
}
