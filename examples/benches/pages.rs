//! One 1 MB `Query` page: the library's page read against the SDK's call alone and against the
//! SDK's call with a hand-written decoder of its maps, the client's CPU time only.
//!
//! The answers are captured once from a real engine (DynamoDB Local, or `DYNAMODB_ENDPOINT`):
//! a GSI1 query of one category of `Skill` items, with no limit, so that DynamoDB stops at
//! 1 MB. Every measured request is then answered by an in-process HTTP client that replays the
//! captured body (in 16 KiB frames, as a socket delivers it), so no server, network or JVM
//! weighs on the figures; the SDK still builds, signs and sends each request and reads the
//! answer through its whole pipeline.
//!
//! | side | what it does per call |
//! |---|---|
//! | `page` | `table.query(Skill::gsi1(category)).send()`: the request, the answer, the entities |
//! | `sdk` | `client.query()…send()`: the request and the SDK's `HashMap<String, AttributeValue>` items |
//! | `hand` | `sdk`, then a hand-written decoder of those maps into `Skill` |
//!
//! Two pages: small items (about 200 bytes, 5,000 written) and large ones (about 4.4 KB: a
//! 1 KB title and 60 tags, 300 written). The three sides run interleaved, in rounds, the one
//! that goes first changing each round; CPU time is this thread's (`CLOCK_THREAD_CPUTIME_ID`,
//! a current-thread runtime), and each figure is the median of the rounds. Before measuring,
//! the three sides' results are checked equal.
//!
//! Each size prints a line of its figures and then
//! `ratio size=<small|large> page_cpu_vs_sdk=A page_cpu_vs_hand=B`: the library's page read
//! over the SDK's call alone, and over the SDK's call with the hand-written decoder.
//!
//! `cargo bench -p dynamo-entity-examples --bench pages` (about a minute after the build);
//! `-- --quick` writes 300 and 30 items and runs 3 short rounds, to check that it works.
//!
//! `-- --only=SIDE --calls=N [--size=small|large]` runs one side (`page`, `sdk` or `hand`)
//! `N` times in [`one_side`] instead of the timed rounds (after the same check), for
//! instruction counts of that side alone:
//!
//! ```text
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*one_side*' \
//!     target/release/deps/pages-* --only=page --calls=5 --size=small
//! ```

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::RuntimeComponents;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_runtime_api::http::{Response, StatusCode};
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::byte_stream::ByteStream;
use bytes::Bytes;
use common::{hand_decode_skill, thread_cpu};
use dynamo_entity::{Entity, Table, Timestamp};
use dynamo_entity_examples::skill_exchange::{Skill, SkillId, SkillStatus, UserId};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The size of a frame of a replayed body.
const FRAME: usize = 16 * 1024;

/// An HTTP client that sends every request to `inner` and keeps each `Query` answer's body.
#[derive(Debug, Clone)]
struct Capture {
    inner: SharedHttpClient,
    bodies: Arc<Mutex<Vec<Bytes>>>,
}

#[derive(Debug)]
struct CaptureConnector {
    inner: SharedHttpConnector,
    bodies: Arc<Mutex<Vec<Bytes>>>,
}

impl HttpClient for Capture {
    fn http_connector(&self, settings: &HttpConnectorSettings, components: &RuntimeComponents) -> SharedHttpConnector {
        let inner = self.inner.http_connector(settings, components);
        SharedHttpConnector::new(CaptureConnector { inner, bodies: self.bodies.clone() })
    }
}

impl HttpConnector for CaptureConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let query = request.headers().get("x-amz-target").is_some_and(|t| t.ends_with(".Query"));
        let (inner, bodies) = (self.inner.clone(), self.bodies.clone());
        HttpConnectorFuture::new(async move {
            let mut response = inner.call(request).await?;
            if !query {
                return Ok(response);
            }
            let bytes = ByteStream::new(response.take_body())
                .collect()
                .await
                .map_err(|e| aws_smithy_runtime_api::client::result::ConnectorError::io(e.into()))?
                .into_bytes();
            bodies.lock().unwrap().push(bytes.clone());
            *response.body_mut() = SdkBody::from(bytes);
            Ok(response)
        })
    }
}

/// An HTTP client that answers every `Query` with `body`, in frames of [`FRAME`] bytes, and
/// sends any other request (the library's first read of a table checks its layout) to `inner`.
#[derive(Debug, Clone)]
struct Replay {
    body: Bytes,
    inner: SharedHttpClient,
}

#[derive(Debug)]
struct ReplayConnector {
    body: Bytes,
    inner: SharedHttpConnector,
}

impl HttpClient for Replay {
    fn http_connector(&self, settings: &HttpConnectorSettings, components: &RuntimeComponents) -> SharedHttpConnector {
        let inner = self.inner.http_connector(settings, components);
        SharedHttpConnector::new(ReplayConnector { body: self.body.clone(), inner })
    }
}

impl HttpConnector for ReplayConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let query = request.headers().get("x-amz-target").is_some_and(|t| t.ends_with(".Query"));
        if !query {
            return self.inner.call(request);
        }
        let body = SdkBody::from_body_1_x(Frames(self.body.clone()));
        let mut response = Response::new(StatusCode::try_from(200).unwrap(), body);
        response.headers_mut().insert("content-type", "application/x-amz-json-1.0");
        response.headers_mut().insert("content-length", self.body.len().to_string());
        HttpConnectorFuture::ready(Ok(response))
    }
}

/// A body yielded in frames of [`FRAME`] bytes.
struct Frames(Bytes);

impl http_body::Body for Frames {
    type Data = Bytes;
    type Error = aws_smithy_types::body::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        if self.0.is_empty() {
            return std::task::Poll::Ready(None);
        }
        let n = FRAME.min(self.0.len());
        let frame = self.0.split_to(n);
        std::task::Poll::Ready(Some(Ok(http_body::Frame::data(frame))))
    }
}

/// `n` skills of `category`: small ones (short texts, no tags, drafts: no GSI4 keys), or large
/// ones (a 1 KB title and 60 tags of 50 bytes).
fn skills(category: &str, n: usize, large: bool) -> Vec<Skill> {
    let base = Timestamp::from_millis(1_767_225_600_000).unwrap_or(Timestamp::EPOCH);
    (0..n)
        .map(|i| Skill {
            id: SkillId(format!("{}{i:06}", &category[..1])),
            title: if large { format!("{i:06} {}", "long title ".repeat(92)) } else { format!("Skill {i}") },
            category: category.to_owned(),
            seller_id: UserId(format!("u{:04}", i % 200)),
            status: if large { SkillStatus::Pending } else { SkillStatus::Draft },
            downloads: (i * 7919 % 100_003) as u64,
            price_cents: 100 * (1 + (i % 50) as u32),
            created_at: base.add_millis(i as i64 * 1000),
            submitted_at: large.then(|| base.add_millis(i as i64 * 1000 + 500)),
            seller_verified: i % 3 == 0,
            tags: if large { (0..60).map(|t| format!("tag {t:02} {}", "x".repeat(42))).collect() } else { Vec::new() },
        })
        .collect()
}

/// The SDK's call alone: the page's items as maps.
async fn sdk_call(client: &Client, table: &str, category: &str) -> Vec<dynamo_entity::Item> {
    let out = client
        .query()
        .table_name(table)
        .index_name("GSI1")
        .key_condition_expression("#pk = :pk")
        .expression_attribute_names("#pk", "category")
        .expression_attribute_values(":pk", AttributeValue::S(category.to_owned()))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .expect("the replayed answer reads");
    out.items.unwrap_or_default()
}

/// Median CPU times (ns per call) of `sides`, run interleaved over `rounds` rounds, each
/// timing every side over the same number of calls (calibrated on the first side so that one
/// timing takes about `slice`), the side that goes first changing each round.
fn interleaved(sides: &mut [&mut dyn FnMut()], rounds: usize, slice: Duration) -> Vec<f64> {
    let mut calls = 1usize;
    loop {
        let t = thread_cpu();
        for _ in 0..calls {
            (sides[0])();
        }
        let spent = thread_cpu() - t;
        if spent >= slice / 4 || calls >= 1 << 20 {
            calls = ((calls as f64) * slice.as_secs_f64() / spent.as_secs_f64().max(1e-9)).ceil().max(1.0) as usize;
            break;
        }
        calls *= 2;
    }
    let mut times = vec![Vec::with_capacity(rounds); sides.len()];
    for r in 0..rounds {
        for k in 0..sides.len() {
            let s = (r + k) % sides.len();
            let t = thread_cpu();
            for _ in 0..calls {
                (sides[s])();
            }
            times[s].push((thread_cpu() - t).as_nanos() as f64 / calls as f64);
        }
    }
    times
        .into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            let n = v.len();
            if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
        })
        .collect()
}

/// Runs `side` `calls` times: the only function of a one-side run (`--only`) that a profiler
/// is told to count.
#[inline(never)]
fn one_side(side: &mut dyn FnMut(), calls: usize) {
    for _ in 0..calls {
        side();
    }
}

/// The value of the argument `--name=value`, if given.
fn arg(name: &str) -> Option<String> {
    let prefix = format!("--{name}=");
    std::env::args().find_map(|a| a.strip_prefix(&prefix).map(str::to_owned))
}

fn main() -> Res<()> {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let only = arg("only");
    let calls: usize = arg("calls").map_or(Ok(1), |c| c.parse())?;
    let size = arg("size");
    let (small_n, large_n, rounds, slice) =
        if quick { (300, 30, 3, Duration::from_millis(20)) } else { (5_000, 300, 15, Duration::from_millis(300)) };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;

    // Capture the two pages from the engine.
    let (base, inner, captured) = rt.block_on(async {
        let server = LocalDynamoDb::shared().await?;
        let base = server.client();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        // The engine's client's HTTP client, or the SDK's default one (rustls), which it uses.
        let inner = base.config().http_client().unwrap_or_else(|| {
            use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};
            aws_smithy_http_client::Builder::new().tls_provider(Provider::Rustls(CryptoMode::AwsLc)).build_https()
        });
        let capture = Client::from_conf(
            base.config().to_builder().http_client(Capture { inner: inner.clone(), bodies: bodies.clone() }).build(),
        );
        let table = Table::new(capture, unique_table_name("bench-pages"));
        table.create_table(&[Skill::schema()]).await?;
        let mut captured = Vec::new();
        for (category, n, large) in [("small", small_n, false), ("large", large_n, true)] {
            if size.as_deref().is_some_and(|s| s != category) {
                continue;
            }
            let written = table.batch_write().put_all(&skills(category, n, large)).send().await?;
            assert_eq!(written.written, n);
            bodies.lock().unwrap().clear();
            let page = table.query(Skill::gsi1(category)).send().await?;
            let body = bodies.lock().unwrap().pop().ok_or("the query's answer was captured")?;
            captured.push((category, table.name().to_owned(), body, page.items.len()));
        }
        Res::Ok((base, inner, captured))
    })?;

    for (category, table_name, body, count) in captured {
        if size.as_deref().is_some_and(|s| s != category) {
            continue;
        }
        let client = Client::from_conf(
            base.config().to_builder().http_client(Replay { body: body.clone(), inner: inner.clone() }).build(),
        );
        let table = Table::new(client.clone(), table_name.clone());
        println!(
            "{category} items: a page of {count} items, {} bytes ({} bytes an item)",
            body.len(),
            body.len() / count.max(1)
        );

        // The three sides agree.
        let page = rt.block_on(table.query(Skill::gsi1(category)).send())?;
        let maps = rt.block_on(sdk_call(&client, &table_name, category));
        let hand = maps.iter().map(hand_decode_skill).collect::<Result<Vec<_>, _>>().map_err(|e| format!("{e:?}"))?;
        assert_eq!(page.items.len(), count);
        assert_eq!(maps.len(), count);
        assert_eq!(page.items, hand, "the library and the hand-written decoder read the same skills");

        let mut page_side = || {
            let page = rt.block_on(table.query(Skill::gsi1(category)).send()).expect("the page reads");
            assert_eq!(page.items.len(), count);
        };
        let mut sdk_side = || {
            let maps = rt.block_on(sdk_call(&client, &table_name, category));
            assert_eq!(maps.len(), count);
        };
        let mut hand_side = || {
            let maps = rt.block_on(sdk_call(&client, &table_name, category));
            let skills: Vec<Skill> = maps.iter().map(|m| hand_decode_skill(m).expect("decodes")).collect();
            assert_eq!(skills.len(), count);
        };
        if let Some(only) = &only {
            let side: &mut dyn FnMut() = match only.as_str() {
                "page" => &mut page_side,
                "sdk" => &mut sdk_side,
                "hand" => &mut hand_side,
                other => return Err(format!("--only={other}: page, sdk or hand").into()),
            };
            let t = thread_cpu();
            one_side(side, calls);
            println!(
                "{category} items: {only} alone, {calls} calls, {:.2} ms a call (CPU)",
                (thread_cpu() - t).as_secs_f64() * 1e3 / calls.max(1) as f64
            );
            continue;
        }
        let t = interleaved(&mut [&mut page_side, &mut sdk_side, &mut hand_side], rounds, slice);
        println!(
            "{category} items: page {:.2} ms, sdk call {:.2} ms, sdk call + hand decoder {:.2} ms (CPU, median of {rounds})",
            t[0] / 1e6,
            t[1] / 1e6,
            t[2] / 1e6
        );
        println!("ratio size={category} page_cpu_vs_sdk={:.3} page_cpu_vs_hand={:.3}", t[0] / t[1], t[0] / t[2]);
    }
    Ok(())
}
