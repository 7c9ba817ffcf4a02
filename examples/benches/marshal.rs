//! Marshalling benchmark: the Skill entity encoded to and decoded from a DynamoDB item by
//! `#[derive(Entity)]`, by hand-written `AttributeValue` code, and by serde_dynamo, in one run.
//!
//! All three produce the same item: every field, `PK`/`SK`, the three GSI key pairs and the
//! entity type attribute. The last line printed is
//! `ratio encode_vs_hand=X decode_vs_hand=Y encode_vs_serde_dynamo=Z decode_vs_serde_dynamo=W`
//! (derive time divided by the other's time: below 1 means the derive is faster).
//!
//! `cargo bench -p dynamo-entity-examples --bench marshal` (add `-- --quick` for a short run).

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::Criterion;
use dynamo_entity::{Entity, Item, Timestamp};
use dynamo_entity_examples::skill_exchange::{Dataset, Sizes, Skill, SkillId, SkillStatus, UserId};
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------------
// Hand-written: what a careful engineer writes with the SDK alone.

fn status_text(s: SkillStatus) -> &'static str {
    match s {
        SkillStatus::Draft => "draft",
        SkillStatus::Pending => "pending",
        SkillStatus::Approved => "approved",
    }
}

fn hand_encode(s: &Skill) -> Item {
    let mut item = HashMap::with_capacity(20);
    item.insert(
        "PK".to_owned(),
        AttributeValue::S(format!("SKILL#{}", s.id.0.replace('%', "%25").replace('#', "%23"))),
    );
    item.insert("SK".to_owned(), AttributeValue::S("META".to_owned()));
    item.insert(
        "GSI1PK".to_owned(),
        AttributeValue::S(format!("CAT#{}", s.category.replace('%', "%25").replace('#', "%23"))),
    );
    item.insert("GSI1SK".to_owned(), AttributeValue::N(s.downloads.to_string()));
    item.insert(
        "GSI2PK".to_owned(),
        AttributeValue::S(format!("SELLER#{}", s.seller_id.0.replace('%', "%25").replace('#', "%23"))),
    );
    item.insert("GSI2SK".to_owned(), AttributeValue::S(s.created_at.to_string()));
    if let Some(t) = s.submitted_at {
        item.insert("GSI4PK".to_owned(), AttributeValue::S(format!("SKILL#{}", status_text(s.status))));
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

#[derive(Debug)]
struct HandError(#[allow(dead_code)] &'static str);

fn s_of<'a>(item: &'a Item, k: &'static str) -> Result<&'a String, HandError> {
    item.get(k).and_then(|v| v.as_s().ok()).ok_or(HandError(k))
}

fn n_of<T: std::str::FromStr>(item: &Item, k: &'static str) -> Result<T, HandError> {
    item.get(k).and_then(|v| v.as_n().ok()).and_then(|n| n.parse().ok()).ok_or(HandError(k))
}

fn hand_decode(item: &Item) -> Result<Skill, HandError> {
    if s_of(item, "_type")? != "Skill" {
        return Err(HandError("_type"));
    }
    Ok(Skill {
        id: SkillId(s_of(item, "id")?.clone()),
        title: s_of(item, "title")?.clone(),
        category: s_of(item, "category")?.clone(),
        seller_id: UserId(s_of(item, "seller_id")?.clone()),
        status: match s_of(item, "status")?.as_str() {
            "draft" => SkillStatus::Draft,
            "pending" => SkillStatus::Pending,
            "approved" => SkillStatus::Approved,
            _ => return Err(HandError("status")),
        },
        downloads: n_of(item, "downloads")?,
        price_cents: n_of(item, "price_cents")?,
        created_at: Timestamp::parse(s_of(item, "created_at")?).map_err(|_| HandError("created_at"))?,
        submitted_at: match item.get("submitted_at") {
            None => None,
            Some(v) => Some(
                Timestamp::parse(v.as_s().map_err(|_| HandError("submitted_at"))?)
                    .map_err(|_| HandError("submitted_at"))?,
            ),
        },
        seller_verified: *item
            .get("sellerVerified")
            .and_then(|v| v.as_bool().ok())
            .ok_or(HandError("sellerVerified"))?,
        tags: item
            .get("tags")
            .and_then(|v| v.as_l().ok())
            .ok_or(HandError("tags"))?
            .iter()
            .map(|t| t.as_s().cloned().map_err(|_| HandError("tags")))
            .collect::<Result<_, _>>()?,
    })
}

// ---------------------------------------------------------------------------------------------
// serde_dynamo: a record struct with the key attributes as fields, as its users write.

#[derive(Serialize, Deserialize)]
struct SkillRecord {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
    #[serde(rename = "GSI1PK")]
    gsi1pk: String,
    #[serde(rename = "GSI1SK")]
    gsi1sk: u64,
    #[serde(rename = "GSI2PK")]
    gsi2pk: String,
    #[serde(rename = "GSI2SK")]
    gsi2sk: String,
    #[serde(rename = "GSI4PK", skip_serializing_if = "Option::is_none", default)]
    gsi4pk: Option<String>,
    #[serde(rename = "GSI4SK", skip_serializing_if = "Option::is_none", default)]
    gsi4sk: Option<String>,
    id: String,
    title: String,
    category: String,
    seller_id: String,
    status: String,
    downloads: u64,
    price_cents: u32,
    created_at: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    submitted_at: Option<String>,
    #[serde(rename = "sellerVerified")]
    seller_verified: bool,
    tags: Vec<String>,
    #[serde(rename = "_type")]
    entity_type: String,
}

fn serde_encode(s: &Skill) -> Item {
    let esc = |v: &str| v.replace('%', "%25").replace('#', "%23");
    let record = SkillRecord {
        pk: format!("SKILL#{}", esc(&s.id.0)),
        sk: "META".to_owned(),
        gsi1pk: format!("CAT#{}", esc(&s.category)),
        gsi1sk: s.downloads,
        gsi2pk: format!("SELLER#{}", esc(&s.seller_id.0)),
        gsi2sk: s.created_at.to_string(),
        gsi4pk: s.submitted_at.map(|_| format!("SKILL#{}", status_text(s.status))),
        gsi4sk: s.submitted_at.map(|t| t.to_string()),
        id: s.id.0.clone(),
        title: s.title.clone(),
        category: s.category.clone(),
        seller_id: s.seller_id.0.clone(),
        status: status_text(s.status).to_owned(),
        downloads: s.downloads,
        price_cents: s.price_cents,
        created_at: s.created_at.to_string(),
        submitted_at: s.submitted_at.map(|t| t.to_string()),
        seller_verified: s.seller_verified,
        tags: s.tags.clone(),
        entity_type: "Skill".to_owned(),
    };
    serde_dynamo::to_item(record).expect("serde_dynamo encodes the record")
}

fn serde_decode(item: &Item) -> Result<Skill, HandError> {
    let r: SkillRecord = serde_dynamo::from_item(item.clone()).map_err(|_| HandError("serde"))?;
    if r.entity_type != "Skill" {
        return Err(HandError("_type"));
    }
    Ok(Skill {
        id: SkillId(r.id),
        title: r.title,
        category: r.category,
        seller_id: UserId(r.seller_id),
        status: match r.status.as_str() {
            "draft" => SkillStatus::Draft,
            "pending" => SkillStatus::Pending,
            "approved" => SkillStatus::Approved,
            _ => return Err(HandError("status")),
        },
        downloads: r.downloads,
        price_cents: r.price_cents,
        created_at: Timestamp::parse(&r.created_at).map_err(|_| HandError("created_at"))?,
        submitted_at: r
            .submitted_at
            .map(|t| Timestamp::parse(&t))
            .transpose()
            .map_err(|_| HandError("submitted_at"))?,
        seller_verified: r.seller_verified,
        tags: r.tags,
    })
}

// ---------------------------------------------------------------------------------------------

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let data = Dataset::generate(7, Sizes::SMALL);
    let skills: Vec<Skill> = data.skills.iter().take(32).cloned().collect();
    let items: Vec<Item> = skills.iter().map(|s| s.to_item().expect("encodes")).collect();

    // The three encoders agree, and every decoder reads every item back.
    for (s, item) in skills.iter().zip(&items) {
        assert_eq!(&hand_encode(s), item, "hand-written and derived items differ");
        assert_eq!(&serde_encode(s), item, "serde_dynamo and derived items differ");
        assert_eq!(&Skill::from_item(item).expect("decodes"), s);
        assert_eq!(&hand_decode(item).expect("decodes"), s);
        assert_eq!(&serde_decode(item).expect("decodes"), s);
    }

    let mut c = Criterion::default().configure_from_args();
    c = if quick {
        c.warm_up_time(Duration::from_millis(100)).measurement_time(Duration::from_millis(300)).sample_size(10)
    } else {
        c.warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(5)).sample_size(50)
    };

    let mut g = c.benchmark_group("skill");
    g.bench_function("encode_derive", |b| {
        b.iter(|| {
            for s in &skills {
                black_box(s.to_item().ok());
            }
        })
    });
    g.bench_function("encode_hand", |b| {
        b.iter(|| {
            for s in &skills {
                black_box(hand_encode(s));
            }
        })
    });
    g.bench_function("encode_serde_dynamo", |b| {
        b.iter(|| {
            for s in &skills {
                black_box(serde_encode(s));
            }
        })
    });
    g.bench_function("decode_derive", |b| {
        b.iter(|| {
            for i in &items {
                black_box(Skill::from_item(i).ok());
            }
        })
    });
    g.bench_function("decode_hand", |b| {
        b.iter(|| {
            for i in &items {
                black_box(hand_decode(i).ok());
            }
        })
    });
    g.bench_function("decode_serde_dynamo", |b| {
        b.iter(|| {
            for i in &items {
                black_box(serde_decode(i).ok());
            }
        })
    });
    g.finish();
    c.final_summary();

    // Ratios from the estimates criterion saved for this run.
    let est = |name: &str| read_estimate(&format!("skill/{name}"));
    let (ed, eh, es) = (est("encode_derive"), est("encode_hand"), est("encode_serde_dynamo"));
    let (dd, dh, ds) = (est("decode_derive"), est("decode_hand"), est("decode_serde_dynamo"));
    println!(
        "ratio encode_vs_hand={:.3} decode_vs_hand={:.3} encode_vs_serde_dynamo={:.3} decode_vs_serde_dynamo={:.3}",
        ed / eh,
        dd / dh,
        ed / es,
        dd / ds
    );
}

/// The mean point estimate (ns) criterion wrote for `id` in this run.
fn read_estimate(id: &str) -> f64 {
    let dir = std::env::var("CARGO_TARGET_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../target").to_owned());
    let path = format!("{dir}/criterion/{id}/new/estimates.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    v["mean"]["point_estimate"].as_f64().unwrap_or_else(|| panic!("{path}: no mean"))
}
