//! Marshalling benchmark: every Skill Exchange entity encoded to and decoded from a DynamoDB
//! item by `#[derive(Entity)]`, by hand-written `AttributeValue` code and by serde_dynamo, and
//! the item collections `SkillPage` / `UserPage` decoded from a Query page's items by
//! `#[derive(Collection)]`, by hand and through serde_dynamo, all in one run.
//!
//! The three ways produce the same items (every field, `PK`/`SK`, the template GSIs' key pairs,
//! none for Skill's GSI1, which is keyed on its own `category` / `downloads`; the entity type
//! attribute) and the same values back; the benchmark asserts it before measuring. Each
//! measurement is one pass over a fixed set of values or items (32 per entity; 8 skill pages of
//! 1 skill and 15 reviews; 8 user pages of 1 profile and its badges).
//!
//! Printed: one `entity <Name> ...` line per entity with its ratios, then the last line
//! `ratio encode_vs_hand=A decode_vs_hand=B collection_vs_hand=C worst_entity_vs_hand=D
//! encode_vs_serde_dynamo=E decode_vs_serde_dynamo=F collection_vs_serde_dynamo=G`, each the
//! derive's time divided by the other's (below 1: the derive is faster). `encode_vs_hand` and
//! `decode_vs_hand` compare the summed times over the seven entities, `collection_vs_hand` the
//! summed time of both collections, `worst_entity_vs_hand` is the largest single-entity ratio
//! of either direction. The ratios to hand-written code come from a second measurement that
//! times the two in alternation (30 rounds of about 20 ms of the thread's CPU time each,
//! medians), so that a busy machine's load weighs on neither; the serde_dynamo ratios and the `_ns`
//! figures (per item; per pass of 8 pages for collections) from criterion's means.
//!
//! `cargo bench -p dynamo-entity-examples --bench marshal` (add `-- --quick` for a short run
//! that checks the benchmark works).

use std::collections::HashMap;
use std::fmt::Debug;
use std::hint::black_box;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::Criterion;
use dynamo_entity::collection::Unknown;
use dynamo_entity::{Collection, Entity, Item, Timestamp};
use dynamo_entity_examples::skill_exchange::{
    Badge, BadgeType, Coupon, Dataset, Purchase, Redemption, Review, Sizes, Skill, SkillId, SkillPage, SkillStatus,
    User, UserId, UserPage,
};
use serde::{Deserialize, Serialize};

mod common;
use common::{
    HandError, bool_of, check_type, hand_decode_skill, hand_encode_skill, interleaved, key1, n_of, parse_status,
    push_escaped, s_of, skill_gsi4pk, status_text, ts_of,
};

// ---------------------------------------------------------------------------------------------
// Hand-written: what a careful engineer writes with the SDK alone.

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn badge_text(b: BadgeType) -> &'static str {
    match b {
        BadgeType::Publisher => "publisher",
        BadgeType::TopSeller => "top_seller",
        BadgeType::Collector => "collector",
    }
}

fn hand_encode_user(u: &User) -> Item {
    let mut item = HashMap::with_capacity(11);
    item.insert("PK".to_owned(), AttributeValue::S(key1("USER#", &u.id.0)));
    item.insert("SK".to_owned(), s("PROFILE"));
    item.insert("GSI5PK".to_owned(), s("LEADERBOARD"));
    item.insert("GSI5SK".to_owned(), AttributeValue::N(u.sales.to_string()));
    item.insert("id".to_owned(), s(&u.id.0));
    item.insert("name".to_owned(), s(&u.name));
    item.insert("email".to_owned(), s(&u.email));
    item.insert("verified".to_owned(), AttributeValue::Bool(u.verified));
    item.insert("sales".to_owned(), AttributeValue::N(u.sales.to_string()));
    item.insert("created_at".to_owned(), AttributeValue::S(u.created_at.to_string()));
    item.insert("_type".to_owned(), s("User"));
    item
}

fn hand_decode_user(item: &Item) -> Result<User, HandError> {
    check_type(item, "User")?;
    Ok(User {
        id: UserId(s_of(item, "id")?.clone()),
        name: s_of(item, "name")?.clone(),
        email: s_of(item, "email")?.clone(),
        verified: bool_of(item, "verified")?,
        sales: n_of(item, "sales")?,
        created_at: ts_of(item, "created_at")?,
    })
}

fn hand_encode_badge(b: &Badge) -> Item {
    let mut item = HashMap::with_capacity(6);
    item.insert("PK".to_owned(), AttributeValue::S(key1("USER#", &b.user_id.0)));
    item.insert("SK".to_owned(), AttributeValue::S(format!("BADGE#{}", badge_text(b.badge))));
    item.insert("user_id".to_owned(), s(&b.user_id.0));
    item.insert("badge".to_owned(), s(badge_text(b.badge)));
    item.insert("awarded_at".to_owned(), AttributeValue::S(b.awarded_at.to_string()));
    item.insert("_type".to_owned(), s("Badge"));
    item
}

fn parse_badge(t: &str) -> Result<BadgeType, HandError> {
    match t {
        "publisher" => Ok(BadgeType::Publisher),
        "top_seller" => Ok(BadgeType::TopSeller),
        "collector" => Ok(BadgeType::Collector),
        _ => Err(HandError("badge")),
    }
}

fn hand_decode_badge(item: &Item) -> Result<Badge, HandError> {
    check_type(item, "Badge")?;
    Ok(Badge {
        user_id: UserId(s_of(item, "user_id")?.clone()),
        badge: parse_badge(s_of(item, "badge")?)?,
        awarded_at: ts_of(item, "awarded_at")?,
    })
}

fn hand_encode_review(r: &Review) -> Item {
    let mut item = HashMap::with_capacity(9);
    item.insert("PK".to_owned(), AttributeValue::S(key1("SKILL#", &r.skill_id.0)));
    item.insert("SK".to_owned(), AttributeValue::S(format!("REVIEW#{:010}", r.id)));
    item.insert("skill_id".to_owned(), s(&r.skill_id.0));
    item.insert("id".to_owned(), AttributeValue::N(r.id.to_string()));
    item.insert("author_id".to_owned(), s(&r.author_id.0));
    item.insert("rating".to_owned(), AttributeValue::N(r.rating.to_string()));
    item.insert("body".to_owned(), s(&r.body));
    item.insert("created_at".to_owned(), AttributeValue::S(r.created_at.to_string()));
    item.insert("_type".to_owned(), s("Review"));
    item
}

fn hand_decode_review(item: &Item) -> Result<Review, HandError> {
    check_type(item, "Review")?;
    Ok(Review {
        skill_id: SkillId(s_of(item, "skill_id")?.clone()),
        id: n_of(item, "id")?,
        author_id: UserId(s_of(item, "author_id")?.clone()),
        rating: n_of(item, "rating")?,
        body: s_of(item, "body")?.clone(),
        created_at: ts_of(item, "created_at")?,
    })
}

fn hand_encode_purchase(p: &Purchase) -> Item {
    let mut item = HashMap::with_capacity(9);
    let mut pk = key1("PURCHASE#", &p.skill_id.0);
    pk.push('#');
    push_escaped(&mut pk, &p.buyer_id.0);
    item.insert("PK".to_owned(), AttributeValue::S(pk));
    item.insert("SK".to_owned(), s("META"));
    item.insert("GSI3PK".to_owned(), AttributeValue::S(key1("BUYER#", &p.buyer_id.0)));
    item.insert("GSI3SK".to_owned(), AttributeValue::S(p.purchased_at.to_string()));
    item.insert("skill_id".to_owned(), s(&p.skill_id.0));
    item.insert("buyer_id".to_owned(), s(&p.buyer_id.0));
    item.insert("price_cents".to_owned(), AttributeValue::N(p.price_cents.to_string()));
    item.insert("purchased_at".to_owned(), AttributeValue::S(p.purchased_at.to_string()));
    item.insert("_type".to_owned(), s("Purchase"));
    item
}

fn hand_decode_purchase(item: &Item) -> Result<Purchase, HandError> {
    check_type(item, "Purchase")?;
    Ok(Purchase {
        skill_id: SkillId(s_of(item, "skill_id")?.clone()),
        buyer_id: UserId(s_of(item, "buyer_id")?.clone()),
        price_cents: n_of(item, "price_cents")?,
        purchased_at: ts_of(item, "purchased_at")?,
    })
}

fn hand_encode_coupon(c: &Coupon) -> Item {
    let mut item = HashMap::with_capacity(6);
    item.insert("PK".to_owned(), AttributeValue::S(key1("COUPON#", &c.code)));
    item.insert("SK".to_owned(), s("META"));
    item.insert("code".to_owned(), s(&c.code));
    item.insert("percent_off".to_owned(), AttributeValue::N(c.percent_off.to_string()));
    item.insert("expires_at".to_owned(), AttributeValue::S(c.expires_at.to_string()));
    item.insert("_type".to_owned(), s("Coupon"));
    item
}

fn hand_decode_coupon(item: &Item) -> Result<Coupon, HandError> {
    check_type(item, "Coupon")?;
    Ok(Coupon {
        code: s_of(item, "code")?.clone(),
        percent_off: n_of(item, "percent_off")?,
        expires_at: ts_of(item, "expires_at")?,
    })
}

fn hand_encode_redemption(r: &Redemption) -> Item {
    let mut item = HashMap::with_capacity(6);
    item.insert("PK".to_owned(), AttributeValue::S(key1("COUPON#", &r.code)));
    item.insert("SK".to_owned(), AttributeValue::S(key1("USED#", &r.user_id.0)));
    item.insert("code".to_owned(), s(&r.code));
    item.insert("user_id".to_owned(), s(&r.user_id.0));
    item.insert("redeemed_at".to_owned(), AttributeValue::S(r.redeemed_at.to_string()));
    item.insert("_type".to_owned(), s("Redemption"));
    item
}

fn hand_decode_redemption(item: &Item) -> Result<Redemption, HandError> {
    check_type(item, "Redemption")?;
    Ok(Redemption {
        code: s_of(item, "code")?.clone(),
        user_id: UserId(s_of(item, "user_id")?.clone()),
        redeemed_at: ts_of(item, "redeemed_at")?,
    })
}

fn hand_skill_page(items: &[Item]) -> Result<SkillPage, HandError> {
    let mut skill = None;
    let mut reviews = Vec::new();
    for item in items {
        match item.get("_type").and_then(|v| v.as_s().ok()).map(String::as_str) {
            Some("Skill") if skill.is_some() => return Err(HandError("two skills")),
            Some("Skill") => skill = Some(hand_decode_skill(item)?),
            Some("Review") => reviews.push(hand_decode_review(item)?),
            _ => {}
        }
    }
    Ok(SkillPage { skill: skill.ok_or(HandError("no skill"))?, reviews })
}

fn hand_user_page(items: &[Item]) -> Result<UserPage, HandError> {
    let mut user = None;
    let mut badges = Vec::new();
    for item in items {
        match item.get("_type").and_then(|v| v.as_s().ok()).map(String::as_str) {
            Some("User") if user.is_some() => return Err(HandError("two users")),
            Some("User") => user = Some(hand_decode_user(item)?),
            Some("Badge") => badges.push(hand_decode_badge(item)?),
            _ => {}
        }
    }
    Ok(UserPage { user: user.ok_or(HandError("no user"))?, badges })
}

// ---------------------------------------------------------------------------------------------
// serde_dynamo: record structs with the key attributes as fields, as its users write them.

fn esc(v: &str) -> String {
    v.replace('%', "%25").replace('#', "%23")
}

fn to_item<T: Serialize>(record: T) -> Item {
    serde_dynamo::to_item(record).expect("serde_dynamo encodes the record")
}

/// serde_dynamo's `from_item` takes the item by value: a caller holding `&Item` clones it.
fn from_item<T: for<'de> Deserialize<'de>>(item: &Item, t: &str) -> Result<T, HandError> {
    check_type(item, t)?;
    serde_dynamo::from_item(item.clone()).map_err(|_| HandError("serde"))
}

fn ts(t: &str) -> Result<Timestamp, HandError> {
    Timestamp::parse(t).map_err(|_| HandError("timestamp"))
}

#[derive(Serialize, Deserialize)]
struct UserRecord {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
    #[serde(rename = "GSI5PK")]
    gsi5pk: String,
    #[serde(rename = "GSI5SK")]
    gsi5sk: u64,
    id: String,
    name: String,
    email: String,
    verified: bool,
    sales: u64,
    created_at: String,
    #[serde(rename = "_type")]
    entity_type: String,
}

fn serde_encode_user(u: &User) -> Item {
    to_item(UserRecord {
        pk: format!("USER#{}", esc(&u.id.0)),
        sk: "PROFILE".to_owned(),
        gsi5pk: "LEADERBOARD".to_owned(),
        gsi5sk: u.sales,
        id: u.id.0.clone(),
        name: u.name.clone(),
        email: u.email.clone(),
        verified: u.verified,
        sales: u.sales,
        created_at: u.created_at.to_string(),
        entity_type: "User".to_owned(),
    })
}

fn serde_decode_user(item: &Item) -> Result<User, HandError> {
    let r: UserRecord = from_item(item, "User")?;
    Ok(User {
        id: UserId(r.id),
        name: r.name,
        email: r.email,
        verified: r.verified,
        sales: r.sales,
        created_at: ts(&r.created_at)?,
    })
}

#[derive(Serialize, Deserialize)]
struct BadgeRecord {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
    user_id: String,
    badge: String,
    awarded_at: String,
    #[serde(rename = "_type")]
    entity_type: String,
}

fn serde_encode_badge(b: &Badge) -> Item {
    to_item(BadgeRecord {
        pk: format!("USER#{}", esc(&b.user_id.0)),
        sk: format!("BADGE#{}", badge_text(b.badge)),
        user_id: b.user_id.0.clone(),
        badge: badge_text(b.badge).to_owned(),
        awarded_at: b.awarded_at.to_string(),
        entity_type: "Badge".to_owned(),
    })
}

fn serde_decode_badge(item: &Item) -> Result<Badge, HandError> {
    let r: BadgeRecord = from_item(item, "Badge")?;
    Ok(Badge { user_id: UserId(r.user_id), badge: parse_badge(&r.badge)?, awarded_at: ts(&r.awarded_at)? })
}

#[derive(Serialize, Deserialize)]
struct SkillRecord {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
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

fn serde_encode_skill(s: &Skill) -> Item {
    to_item(SkillRecord {
        pk: format!("SKILL#{}", esc(&s.id.0)),
        sk: "META".to_owned(),
        gsi2pk: format!("SELLER#{}", esc(&s.seller_id.0)),
        gsi2sk: s.created_at.to_string(),
        gsi4pk: s.submitted_at.map(|_| skill_gsi4pk(s.status, &s.id.0)),
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
    })
}

fn serde_decode_skill(item: &Item) -> Result<Skill, HandError> {
    let r: SkillRecord = from_item(item, "Skill")?;
    Ok(Skill {
        id: SkillId(r.id),
        title: r.title,
        category: r.category,
        seller_id: UserId(r.seller_id),
        status: parse_status(&r.status)?,
        downloads: r.downloads,
        price_cents: r.price_cents,
        created_at: ts(&r.created_at)?,
        submitted_at: r.submitted_at.map(|t| ts(&t)).transpose()?,
        seller_verified: r.seller_verified,
        tags: r.tags,
    })
}

#[derive(Serialize, Deserialize)]
struct ReviewRecord {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
    skill_id: String,
    id: u32,
    author_id: String,
    rating: u8,
    body: String,
    created_at: String,
    #[serde(rename = "_type")]
    entity_type: String,
}

fn serde_encode_review(r: &Review) -> Item {
    to_item(ReviewRecord {
        pk: format!("SKILL#{}", esc(&r.skill_id.0)),
        sk: format!("REVIEW#{:010}", r.id),
        skill_id: r.skill_id.0.clone(),
        id: r.id,
        author_id: r.author_id.0.clone(),
        rating: r.rating,
        body: r.body.clone(),
        created_at: r.created_at.to_string(),
        entity_type: "Review".to_owned(),
    })
}

fn serde_decode_review(item: &Item) -> Result<Review, HandError> {
    let r: ReviewRecord = from_item(item, "Review")?;
    Ok(Review {
        skill_id: SkillId(r.skill_id),
        id: r.id,
        author_id: UserId(r.author_id),
        rating: r.rating,
        body: r.body,
        created_at: ts(&r.created_at)?,
    })
}

#[derive(Serialize, Deserialize)]
struct PurchaseRecord {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
    #[serde(rename = "GSI3PK")]
    gsi3pk: String,
    #[serde(rename = "GSI3SK")]
    gsi3sk: String,
    skill_id: String,
    buyer_id: String,
    price_cents: u32,
    purchased_at: String,
    #[serde(rename = "_type")]
    entity_type: String,
}

fn serde_encode_purchase(p: &Purchase) -> Item {
    to_item(PurchaseRecord {
        pk: format!("PURCHASE#{}#{}", esc(&p.skill_id.0), esc(&p.buyer_id.0)),
        sk: "META".to_owned(),
        gsi3pk: format!("BUYER#{}", esc(&p.buyer_id.0)),
        gsi3sk: p.purchased_at.to_string(),
        skill_id: p.skill_id.0.clone(),
        buyer_id: p.buyer_id.0.clone(),
        price_cents: p.price_cents,
        purchased_at: p.purchased_at.to_string(),
        entity_type: "Purchase".to_owned(),
    })
}

fn serde_decode_purchase(item: &Item) -> Result<Purchase, HandError> {
    let r: PurchaseRecord = from_item(item, "Purchase")?;
    Ok(Purchase {
        skill_id: SkillId(r.skill_id),
        buyer_id: UserId(r.buyer_id),
        price_cents: r.price_cents,
        purchased_at: ts(&r.purchased_at)?,
    })
}

#[derive(Serialize, Deserialize)]
struct CouponRecord {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
    code: String,
    percent_off: u8,
    expires_at: String,
    #[serde(rename = "_type")]
    entity_type: String,
}

fn serde_encode_coupon(c: &Coupon) -> Item {
    to_item(CouponRecord {
        pk: format!("COUPON#{}", esc(&c.code)),
        sk: "META".to_owned(),
        code: c.code.clone(),
        percent_off: c.percent_off,
        expires_at: c.expires_at.to_string(),
        entity_type: "Coupon".to_owned(),
    })
}

fn serde_decode_coupon(item: &Item) -> Result<Coupon, HandError> {
    let r: CouponRecord = from_item(item, "Coupon")?;
    Ok(Coupon { code: r.code, percent_off: r.percent_off, expires_at: ts(&r.expires_at)? })
}

#[derive(Serialize, Deserialize)]
struct RedemptionRecord {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
    code: String,
    user_id: String,
    redeemed_at: String,
    #[serde(rename = "_type")]
    entity_type: String,
}

fn serde_encode_redemption(r: &Redemption) -> Item {
    to_item(RedemptionRecord {
        pk: format!("COUPON#{}", esc(&r.code)),
        sk: format!("USED#{}", esc(&r.user_id.0)),
        code: r.code.clone(),
        user_id: r.user_id.0.clone(),
        redeemed_at: r.redeemed_at.to_string(),
        entity_type: "Redemption".to_owned(),
    })
}

fn serde_decode_redemption(item: &Item) -> Result<Redemption, HandError> {
    let r: RedemptionRecord = from_item(item, "Redemption")?;
    Ok(Redemption { code: r.code, user_id: UserId(r.user_id), redeemed_at: ts(&r.redeemed_at)? })
}

fn serde_skill_page(items: &[Item]) -> Result<SkillPage, HandError> {
    let mut skill = None;
    let mut reviews = Vec::new();
    for item in items {
        match item.get("_type").and_then(|v| v.as_s().ok()).map(String::as_str) {
            Some("Skill") if skill.is_some() => return Err(HandError("two skills")),
            Some("Skill") => skill = Some(serde_decode_skill(item)?),
            Some("Review") => reviews.push(serde_decode_review(item)?),
            _ => {}
        }
    }
    Ok(SkillPage { skill: skill.ok_or(HandError("no skill"))?, reviews })
}

fn serde_user_page(items: &[Item]) -> Result<UserPage, HandError> {
    let mut user = None;
    let mut badges = Vec::new();
    for item in items {
        match item.get("_type").and_then(|v| v.as_s().ok()).map(String::as_str) {
            Some("User") if user.is_some() => return Err(HandError("two users")),
            Some("User") => user = Some(serde_decode_user(item)?),
            Some("Badge") => badges.push(serde_decode_badge(item)?),
            _ => {}
        }
    }
    Ok(UserPage { user: user.ok_or(HandError("no user"))?, badges })
}

// ---------------------------------------------------------------------------------------------
// The measurements.

/// One entity: its values, the derived items, and the hand-written and serde_dynamo code.
struct Case<T> {
    values: Vec<T>,
    hand_encode: fn(&T) -> Item,
    hand_decode: fn(&Item) -> Result<T, HandError>,
    serde_encode: fn(&T) -> Item,
    serde_decode: fn(&Item) -> Result<T, HandError>,
}

/// Six times (ns per pass) of one entity or collection: derive, hand, serde_dynamo, for
/// encoding then decoding (collections: decoding only, encode times 0).
#[derive(Clone, Copy, Default)]
struct Times {
    enc: [f64; 3],
    dec: [f64; 3],
    /// Derive and hand-written timed in alternation (medians, ns per pass): the ratios.
    enc_pair: (f64, f64),
    dec_pair: (f64, f64),
}

/// `MARSHAL_PROFILE`, when set: one loop to run for a profiler instead of the benchmark.
fn profile_mode() -> Option<String> {
    std::env::var("MARSHAL_PROFILE").ok()
}

/// Passes over the values in profile mode (`MARSHAL_PROFILE_PASSES`, default 20,000).
fn profile_passes() -> usize {
    std::env::var("MARSHAL_PROFILE_PASSES").ok().and_then(|n| n.parse().ok()).unwrap_or(20_000)
}

/// Rounds and slice length of the interleaved measurement.
fn pairing() -> (usize, Duration) {
    if std::env::args().any(|a| a == "--quick" || a == "--test") {
        (6, Duration::from_millis(5))
    } else {
        (30, Duration::from_millis(20))
    }
}

const WAYS: [&str; 3] = ["derive", "hand", "serde_dynamo"];

fn bench_entity<T: Entity + PartialEq + Debug>(c: &mut Criterion, case: &Case<T>) -> Times {
    let name = T::TYPE;
    let items: Vec<Item> = case.values.iter().map(|v| v.to_item().expect("encodes")).collect();
    // The three encoders agree, and every decoder reads every item back.
    for (v, item) in case.values.iter().zip(&items) {
        assert_eq!(&(case.hand_encode)(v), item, "{name}: hand-written and derived items differ");
        assert_eq!(&(case.serde_encode)(v), item, "{name}: serde_dynamo and derived items differ");
        assert_eq!(&T::from_item(item).expect("decodes"), v);
        assert_eq!(&(case.hand_decode)(item).expect("decodes"), v);
        assert_eq!(&(case.serde_decode)(item).expect("decodes"), v);
    }

    let values = &case.values;
    if let Some(way) = profile_mode() {
        // `MARSHAL_PROFILE=<Entity>/<encode|decode>_<derive|hand>`: only that loop, for a
        // profiler (`perf record`, `valgrind --tool=callgrind`); other entities are skipped.
        if let Some(way) = way.strip_prefix(name).and_then(|w| w.strip_prefix('/')) {
            let (he, hd) = (case.hand_encode, case.hand_decode);
            for _ in 0..profile_passes() {
                match way {
                    "encode_derive" => values.iter().for_each(|v| drop(black_box(v.to_item().ok()))),
                    "encode_hand" => values.iter().for_each(|v| drop(black_box(he(v)))),
                    "decode_derive" => items.iter().for_each(|i| drop(black_box(T::from_item(i).ok()))),
                    "decode_hand" => items.iter().for_each(|i| drop(black_box(hd(i).ok()))),
                    "pair" => break,
                    _ => panic!("MARSHAL_PROFILE: unknown way {way:?}"),
                }
            }
            if way == "pair" {
                // `<Entity>/pair`: only the interleaved ratios, printed.
                let (rounds, slice) = (30, Duration::from_millis(20));
                let e = interleaved(
                    || values.iter().for_each(|v| drop(black_box(v.to_item().ok()))),
                    || values.iter().for_each(|v| drop(black_box(he(v)))),
                    rounds,
                    slice,
                );
                let d = interleaved(
                    || items.iter().for_each(|i| drop(black_box(T::from_item(i).ok()))),
                    || items.iter().for_each(|i| drop(black_box(hd(i).ok()))),
                    rounds,
                    slice,
                );
                println!(
                    "pair {name} encode_vs_hand={:.3} decode_vs_hand={:.3} encode_ns={:.0}/{:.0} decode_ns={:.0}/{:.0}",
                    e.0 / e.1,
                    d.0 / d.1,
                    e.0 / values.len() as f64,
                    e.1 / values.len() as f64,
                    d.0 / items.len() as f64,
                    d.1 / items.len() as f64
                );
            }
        }
        return Times::default();
    }
    let mut g = c.benchmark_group(name);
    g.bench_function("encode_derive", |b| {
        b.iter(|| {
            for v in values {
                black_box(v.to_item().ok());
            }
        })
    });
    let (he, se) = (case.hand_encode, case.serde_encode);
    g.bench_function("encode_hand", |b| {
        b.iter(|| {
            for v in values {
                black_box(he(v));
            }
        })
    });
    g.bench_function("encode_serde_dynamo", |b| {
        b.iter(|| {
            for v in values {
                black_box(se(v));
            }
        })
    });
    g.bench_function("decode_derive", |b| {
        b.iter(|| {
            for i in &items {
                black_box(T::from_item(i).ok());
            }
        })
    });
    let (hd, sd) = (case.hand_decode, case.serde_decode);
    g.bench_function("decode_hand", |b| {
        b.iter(|| {
            for i in &items {
                black_box(hd(i).ok());
            }
        })
    });
    g.bench_function("decode_serde_dynamo", |b| {
        b.iter(|| {
            for i in &items {
                black_box(sd(i).ok());
            }
        })
    });
    g.finish();

    let mut t = Times::default();
    for (k, way) in WAYS.iter().enumerate() {
        t.enc[k] = read_estimate(&format!("{name}/encode_{way}"));
        t.dec[k] = read_estimate(&format!("{name}/decode_{way}"));
    }
    let (rounds, slice) = pairing();
    t.enc_pair = interleaved(
        || values.iter().for_each(|v| drop(black_box(v.to_item().ok()))),
        || values.iter().for_each(|v| drop(black_box(he(v)))),
        rounds,
        slice,
    );
    t.dec_pair = interleaved(
        || items.iter().for_each(|i| drop(black_box(T::from_item(i).ok()))),
        || items.iter().for_each(|i| drop(black_box(hd(i).ok()))),
        rounds,
        slice,
    );
    t
}

type Decoder<C> = fn(&[Item]) -> Result<C, HandError>;

fn bench_collection<C: Collection + PartialEq + Debug>(
    c: &mut Criterion,
    name: &str,
    pages: &[Vec<Item>],
    hand: Decoder<C>,
    serde: Decoder<C>,
) -> Times {
    for items in pages {
        let derived = C::from_items(items, Unknown::Skip).expect("the page decodes");
        assert_eq!(hand(items).expect("the page decodes by hand"), derived, "{name}: hand-written decode differs");
        assert_eq!(serde(items).expect("the page decodes through serde"), derived, "{name}: serde decode differs");
    }
    if let Some(way) = profile_mode() {
        // `MARSHAL_PROFILE=<Collection>/<decode_derive|decode_hand|pair>`, as for an entity.
        if let Some(way) = way.strip_prefix(name).and_then(|w| w.strip_prefix('/')) {
            let derive = || pages.iter().for_each(|p| drop(black_box(C::from_items(p, Unknown::Skip).ok())));
            let by_hand = || pages.iter().for_each(|p| drop(black_box(hand(p).ok())));
            match way {
                "decode_derive" => (0..profile_passes()).for_each(|_| derive()),
                "decode_hand" => (0..profile_passes()).for_each(|_| by_hand()),
                "pair" => {
                    let d = interleaved(derive, by_hand, 30, Duration::from_millis(20));
                    let n = pages.len() as f64;
                    println!("pair {name} decode_vs_hand={:.3} page_ns={:.0}/{:.0}", d.0 / d.1, d.0 / n, d.1 / n);
                }
                _ => panic!("MARSHAL_PROFILE: unknown way {way:?}"),
            }
        }
        return Times::default();
    }
    let mut g = c.benchmark_group(name);
    g.bench_function("decode_derive", |b| {
        b.iter(|| {
            for items in pages {
                black_box(C::from_items(items, Unknown::Skip).ok());
            }
        })
    });
    g.bench_function("decode_hand", |b| {
        b.iter(|| {
            for items in pages {
                black_box(hand(items).ok());
            }
        })
    });
    g.bench_function("decode_serde_dynamo", |b| {
        b.iter(|| {
            for items in pages {
                black_box(serde(items).ok());
            }
        })
    });
    g.finish();
    let mut t = Times::default();
    for (k, way) in WAYS.iter().enumerate() {
        t.dec[k] = read_estimate(&format!("{name}/decode_{way}"));
    }
    let (rounds, slice) = pairing();
    t.dec_pair = interleaved(
        || pages.iter().for_each(|p| drop(black_box(C::from_items(p, Unknown::Skip).ok()))),
        || pages.iter().for_each(|p| drop(black_box(hand(p).ok()))),
        rounds,
        slice,
    );
    t
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let data = Dataset::generate(7, Sizes::FULL);
    const N: usize = 32;
    let take = |n: usize| n.min(N);

    // Redemptions are not in the generated data: one per user for the coupons, in turn.
    let redemptions: Vec<Redemption> = data
        .users
        .iter()
        .take(N)
        .enumerate()
        .map(|(i, u)| Redemption {
            code: data.coupons[i % data.coupons.len()].code.clone(),
            user_id: u.id.clone(),
            redeemed_at: u.created_at.add_millis(86_400_000),
        })
        .collect();
    // Coupons: only three in the data; cycle them with distinct codes to get N.
    let coupons: Vec<Coupon> = (0..N)
        .map(|i| {
            let c = &data.coupons[i % data.coupons.len()];
            Coupon { code: format!("{}-{i}", c.code), ..c.clone() }
        })
        .collect();

    // Item collections as one Query page returns them, in sort-key order: a skill's reviews
    // (REVIEW#…) sort after its META item; a user's badges (BADGE#…) before PROFILE.
    let skill_pages: Vec<Vec<Item>> = data
        .skills
        .iter()
        .filter(|s| s.status == SkillStatus::Approved)
        .take(8)
        .map(|s| {
            let mut items = vec![s.to_item().expect("encodes")];
            for (k, r) in data.reviews.iter().take(15).enumerate() {
                let r = Review { skill_id: s.id.clone(), id: k as u32 + 1, ..r.clone() };
                items.push(r.to_item().expect("encodes"));
            }
            items
        })
        .collect();
    let user_pages: Vec<Vec<Item>> = data
        .users
        .iter()
        .filter(|u| data.badges.iter().any(|b| b.user_id == u.id))
        .take(8)
        .map(|u| {
            let mut items: Vec<Item> =
                data.badges.iter().filter(|b| b.user_id == u.id).map(|b| b.to_item().expect("encodes")).collect();
            items.push(u.to_item().expect("encodes"));
            items
        })
        .collect();
    assert_eq!((skill_pages.len(), user_pages.len()), (8, 8), "the data set has 8 approved skills and 8 badge holders");

    let mut c = Criterion::default().configure_from_args();
    c = if quick {
        c.warm_up_time(Duration::from_millis(100)).measurement_time(Duration::from_millis(300)).sample_size(10)
    } else {
        c.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2)).sample_size(50)
    };

    let entities = [
        bench_entity(
            &mut c,
            &Case {
                values: data.users[..take(data.users.len())].to_vec(),
                hand_encode: hand_encode_user,
                hand_decode: hand_decode_user,
                serde_encode: serde_encode_user,
                serde_decode: serde_decode_user,
            },
        ),
        bench_entity(
            &mut c,
            &Case {
                values: data.badges[..take(data.badges.len())].to_vec(),
                hand_encode: hand_encode_badge,
                hand_decode: hand_decode_badge,
                serde_encode: serde_encode_badge,
                serde_decode: serde_decode_badge,
            },
        ),
        bench_entity(
            &mut c,
            &Case {
                values: data.skills[..N].to_vec(),
                hand_encode: hand_encode_skill,
                hand_decode: hand_decode_skill,
                serde_encode: serde_encode_skill,
                serde_decode: serde_decode_skill,
            },
        ),
        bench_entity(
            &mut c,
            &Case {
                values: data.reviews[..N].to_vec(),
                hand_encode: hand_encode_review,
                hand_decode: hand_decode_review,
                serde_encode: serde_encode_review,
                serde_decode: serde_decode_review,
            },
        ),
        bench_entity(
            &mut c,
            &Case {
                values: data.purchases[..N].to_vec(),
                hand_encode: hand_encode_purchase,
                hand_decode: hand_decode_purchase,
                serde_encode: serde_encode_purchase,
                serde_decode: serde_decode_purchase,
            },
        ),
        bench_entity(
            &mut c,
            &Case {
                values: coupons,
                hand_encode: hand_encode_coupon,
                hand_decode: hand_decode_coupon,
                serde_encode: serde_encode_coupon,
                serde_decode: serde_decode_coupon,
            },
        ),
        bench_entity(
            &mut c,
            &Case {
                values: redemptions,
                hand_encode: hand_encode_redemption,
                hand_decode: hand_decode_redemption,
                serde_encode: serde_encode_redemption,
                serde_decode: serde_decode_redemption,
            },
        ),
    ];
    let names = ["User", "Badge", "Skill", "Review", "Purchase", "Coupon", "Redemption"];
    let collections = [
        bench_collection(&mut c, "SkillPage", &skill_pages, hand_skill_page, serde_skill_page),
        bench_collection(&mut c, "UserPage", &user_pages, hand_user_page, serde_user_page),
    ];
    c.final_summary();
    if profile_mode().is_some() {
        return;
    }

    let mut worst: f64 = 0.0;
    for (name, t) in names.iter().zip(&entities) {
        let (e, d) = (t.enc_pair.0 / t.enc_pair.1, t.dec_pair.0 / t.dec_pair.1);
        worst = worst.max(e).max(d);
        println!(
            "entity {name} encode_vs_hand={e:.3} decode_vs_hand={d:.3} encode_vs_serde_dynamo={:.3} \
             decode_vs_serde_dynamo={:.3} encode_ns={:.0} decode_ns={:.0}",
            t.enc[0] / t.enc[2],
            t.dec[0] / t.dec[2],
            t.enc[0] / N as f64,
            t.dec[0] / N as f64,
        );
    }
    for (name, t) in ["SkillPage", "UserPage"].iter().zip(&collections) {
        println!(
            "collection {name} decode_vs_hand={:.3} decode_vs_serde_dynamo={:.3} pages_ns={:.0}",
            t.dec_pair.0 / t.dec_pair.1,
            t.dec[0] / t.dec[2],
            t.dec[0]
        );
    }
    let sum = |ts: &[Times], f: fn(&Times) -> f64| ts.iter().map(f).sum::<f64>();
    println!(
        "ratio encode_vs_hand={:.3} decode_vs_hand={:.3} collection_vs_hand={:.3} worst_entity_vs_hand={worst:.3} \
         encode_vs_serde_dynamo={:.3} decode_vs_serde_dynamo={:.3} collection_vs_serde_dynamo={:.3}",
        sum(&entities, |t| t.enc_pair.0) / sum(&entities, |t| t.enc_pair.1),
        sum(&entities, |t| t.dec_pair.0) / sum(&entities, |t| t.dec_pair.1),
        sum(&collections, |t| t.dec_pair.0) / sum(&collections, |t| t.dec_pair.1),
        sum(&entities, |t| t.enc[0]) / sum(&entities, |t| t.enc[2]),
        sum(&entities, |t| t.dec[0]) / sum(&entities, |t| t.dec[2]),
        sum(&collections, |t| t.dec[0]) / sum(&collections, |t| t.dec[2]),
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
