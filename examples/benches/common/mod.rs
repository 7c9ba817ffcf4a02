//! Hand-written `AttributeValue` code for the Skill entity, shared by the benchmarks: what a
//! careful engineer writes with the SDK alone (one pre-sized buffer per key, escaping `%` and
//! `#` as the library's key contract does, errors naming the attribute).

#![allow(dead_code)] // each benchmark uses a part

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Item, Timestamp};
use dynamo_entity_examples::skill_exchange::{Skill, SkillId, SkillStatus, UserId};

/// `prefix` then `part` with `%` and `#` escaped (the library's key contract), one allocation.
pub fn key1(prefix: &str, part: &str) -> String {
    let mut s = String::with_capacity(prefix.len() + part.len() + 4);
    s.push_str(prefix);
    push_escaped(&mut s, part);
    s
}

/// Skill's GSI4 partition key `SKILL#<status>#<shard(id, 8)>`: the shard is FNV-1a (64 bits)
/// of the id's key text (escaped), modulo 8, one digit.
pub fn skill_gsi4pk(status: SkillStatus, id: &str) -> String {
    let status = status_text(status);
    let mut s = String::with_capacity(8 + status.len());
    s.push_str("SKILL#");
    s.push_str(status);
    s.push('#');
    let start = s.len();
    push_escaped(&mut s, id);
    let hash = s.as_bytes()[start..]
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    s.truncate(start);
    s.push(char::from(b'0' + (hash % 8) as u8));
    s
}

pub fn push_escaped(s: &mut String, part: &str) {
    for c in part.chars() {
        match c {
            '%' => s.push_str("%25"),
            '#' => s.push_str("%23"),
            c => s.push(c),
        }
    }
}

pub fn status_text(s: SkillStatus) -> &'static str {
    match s {
        SkillStatus::Draft => "draft",
        SkillStatus::Pending => "pending",
        SkillStatus::Approved => "approved",
    }
}

#[derive(Debug)]
pub struct HandError(#[allow(dead_code)] pub &'static str);

pub fn s_of<'a>(item: &'a Item, k: &'static str) -> Result<&'a String, HandError> {
    item.get(k).and_then(|v| v.as_s().ok()).ok_or(HandError(k))
}

pub fn n_of<T: std::str::FromStr>(item: &Item, k: &'static str) -> Result<T, HandError> {
    item.get(k).and_then(|v| v.as_n().ok()).and_then(|n| n.parse().ok()).ok_or(HandError(k))
}

pub fn bool_of(item: &Item, k: &'static str) -> Result<bool, HandError> {
    item.get(k).and_then(|v| v.as_bool().ok()).copied().ok_or(HandError(k))
}

pub fn ts_of(item: &Item, k: &'static str) -> Result<Timestamp, HandError> {
    Timestamp::parse(s_of(item, k)?).map_err(|_| HandError(k))
}

pub fn check_type(item: &Item, t: &str) -> Result<(), HandError> {
    if s_of(item, "_type")? != t {
        return Err(HandError("_type"));
    }
    Ok(())
}

/// The Skill item: `PK` / `SK`, the GSI2 and GSI4 key pairs (key templates), the fields
/// (GSI1 is keyed on the item's own `category` and `downloads`: nothing more to write for it),
/// the type attribute.
pub fn hand_encode_skill(s: &Skill) -> Item {
    let mut item = HashMap::with_capacity(20);
    item.insert("PK".to_owned(), AttributeValue::S(key1("SKILL#", &s.id.0)));
    item.insert("SK".to_owned(), AttributeValue::S("META".to_owned()));
    item.insert("GSI2PK".to_owned(), AttributeValue::S(key1("SELLER#", &s.seller_id.0)));
    item.insert("GSI2SK".to_owned(), AttributeValue::S(s.created_at.to_string()));
    if let Some(t) = s.submitted_at {
        item.insert("GSI4PK".to_owned(), AttributeValue::S(skill_gsi4pk(s.status, &s.id.0)));
        item.insert("GSI4SK".to_owned(), AttributeValue::S(t.to_string()));
    }
    item.insert("id".to_owned(), AttributeValue::S(s.id.0.clone()));
    item.insert("title".to_owned(), AttributeValue::S(s.title.clone()));
    item.insert("category".to_owned(), AttributeValue::S(s.category.clone()));
    item.insert("seller_id".to_owned(), AttributeValue::S(s.seller_id.0.clone()));
    item.insert("status".to_owned(), AttributeValue::S(status_text(s.status).to_owned()));
    item.insert("downloads".to_owned(), AttributeValue::N(s.downloads.to_string()));
    item.insert("price_cents".to_owned(), AttributeValue::N(s.price_cents.to_string()));
    item.insert("created_at".to_owned(), AttributeValue::S(s.created_at.to_string()));
    if let Some(t) = s.submitted_at {
        item.insert("submitted_at".to_owned(), AttributeValue::S(t.to_string()));
    }
    item.insert("sellerVerified".to_owned(), AttributeValue::Bool(s.seller_verified));
    item.insert("tags".to_owned(), AttributeValue::L(s.tags.iter().map(|t| AttributeValue::S(t.clone())).collect()));
    item.insert("_type".to_owned(), AttributeValue::S("Skill".to_owned()));
    item
}

pub fn parse_status(t: &str) -> Result<SkillStatus, HandError> {
    match t {
        "draft" => Ok(SkillStatus::Draft),
        "pending" => Ok(SkillStatus::Pending),
        "approved" => Ok(SkillStatus::Approved),
        _ => Err(HandError("status")),
    }
}

pub fn hand_decode_skill(item: &Item) -> Result<Skill, HandError> {
    check_type(item, "Skill")?;
    Ok(Skill {
        id: SkillId(s_of(item, "id")?.clone()),
        title: s_of(item, "title")?.clone(),
        category: s_of(item, "category")?.clone(),
        seller_id: UserId(s_of(item, "seller_id")?.clone()),
        status: parse_status(s_of(item, "status")?)?,
        downloads: n_of(item, "downloads")?,
        price_cents: n_of(item, "price_cents")?,
        created_at: ts_of(item, "created_at")?,
        submitted_at: match item.get("submitted_at") {
            None => None,
            Some(v) => Some(
                Timestamp::parse(v.as_s().map_err(|_| HandError("submitted_at"))?)
                    .map_err(|_| HandError("submitted_at"))?,
            ),
        },
        seller_verified: bool_of(item, "sellerVerified")?,
        tags: item
            .get("tags")
            .and_then(|v| v.as_l().ok())
            .ok_or(HandError("tags"))?
            .iter()
            .map(|t| t.as_s().cloned().map_err(|_| HandError("tags")))
            .collect::<Result<_, _>>()?,
    })
}

/// CPU time this thread has used: unlike the wall clock, it does not count the time the
/// thread waits for a core, which on a busy machine is most of it.
pub fn thread_cpu() -> std::time::Duration {
    // SAFETY: clock_gettime writes the struct it is given and reads nothing else.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Median CPU times (ns per call of each closure, from [`thread_cpu`]) of `a` and `b` measured
/// interleaved: `rounds` rounds, each timing `a` then `b` (or `b` then `a`, alternating) over
/// the same number of calls, so that whatever else the machine does during the run weighs on
/// both alike. The call count is calibrated first so that one timing takes about `slice` of
/// CPU time.
pub fn interleaved(mut a: impl FnMut(), mut b: impl FnMut(), rounds: usize, slice: std::time::Duration) -> (f64, f64) {
    let mut calls = 1usize;
    loop {
        let t = thread_cpu();
        for _ in 0..calls {
            a();
        }
        let spent = thread_cpu() - t;
        if spent >= slice / 4 || calls >= 1 << 24 {
            calls = ((calls as f64) * slice.as_secs_f64() / spent.as_secs_f64().max(1e-9)).ceil() as usize;
            break;
        }
        calls *= 2;
    }
    let calls = calls.max(1);
    let time = |f: &mut dyn FnMut()| {
        let t = thread_cpu();
        for _ in 0..calls {
            f();
        }
        (thread_cpu() - t).as_nanos() as f64 / calls as f64
    };
    let (mut ta, mut tb) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for r in 0..rounds {
        if r % 2 == 0 {
            ta.push(time(&mut a));
            tb.push(time(&mut b));
        } else {
            tb.push(time(&mut b));
            ta.push(time(&mut a));
        }
    }
    (median(&mut ta), median(&mut tb))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
