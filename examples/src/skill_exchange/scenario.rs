//! The access patterns of Skill Exchange, each checked against the data set.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::time::Instant;

use dynamo_entity::{Entity, Error, Table};
use futures::{StreamExt, TryStreamExt};

use super::data::Dataset;
use super::model::*;

/// One access pattern's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternReport {
    /// What was asked.
    pub name: &'static str,
    /// How many items the answer held.
    pub items: usize,
    /// Wall time in microseconds.
    pub micros: u128,
}

/// An answer that differs from what the data set says, or an operation that failed.
#[derive(Debug)]
pub struct Mismatch {
    /// The access pattern.
    pub pattern: &'static str,
    /// What differed.
    pub detail: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pattern, self.detail)
    }
}

impl std::error::Error for Mismatch {}

fn check(pattern: &'static str, ok: bool, detail: impl FnOnce() -> String) -> Result<(), Mismatch> {
    if ok { Ok(()) } else { Err(Mismatch { pattern, detail: detail() }) }
}

fn failed(pattern: &'static str) -> impl FnOnce(Error) -> Mismatch {
    move |e| Mismatch { pattern, detail: format!("operation failed: {e}") }
}

/// Writes every item of the data set with `concurrency` puts in flight.
///
/// # Errors
/// The first write that fails.
pub async fn load(table: &Table, data: &Dataset, concurrency: usize) -> Result<PatternReport, Mismatch> {
    let start = Instant::now();
    let mut items = Vec::with_capacity(data.item_count());
    macro_rules! add {
        ($($v:expr),*) => {$(
            for e in &$v {
                items.push(e.to_item().map_err(failed("load"))?);
            }
        )*};
    }
    add!(data.users, data.skills, data.reviews, data.purchases, data.coupons, data.badges);
    let count = items.len();
    futures::stream::iter(items)
        .map(|item| {
            let client = table.client().clone();
            let name = table.name().to_owned();
            async move { client.put_item().table_name(name).set_item(Some(item)).send().await.map(|_| ()) }
        })
        .buffer_unordered(concurrency)
        .try_collect::<Vec<()>>()
        .await
        .map_err(|e| Mismatch { pattern: "load", detail: format!("PutItem failed: {e:?}") })?;
    Ok(PatternReport { name: "load the data set (PutItem)", items: count, micros: start.elapsed().as_micros() })
}

/// Runs every access pattern against a table loaded with `data` and checks each answer.
///
/// # Errors
/// The first answer that differs from the data set.
pub async fn run(table: &Table, data: &Dataset) -> Result<Vec<PatternReport>, Mismatch> {
    let mut reports = Vec::new();
    macro_rules! timed {
        ($name:expr, $body:expr) => {{
            let start = Instant::now();
            let (items, value) = $body;
            reports.push(PatternReport { name: $name, items, micros: start.elapsed().as_micros() });
            value
        }};
    }

    // Get a skill, a user and a purchase by id.
    let want = &data.skills[data.skills.len() / 2];
    let got = timed!("get a skill by id", {
        let p = "get a skill by id";
        let got = table.get(Skill::key(&want.id)).await.map_err(failed(p))?;
        (usize::from(got.is_some()), got)
    });
    check("get a skill by id", got.as_ref() == Some(want), || format!("got {got:?}"))?;

    let want = &data.users[data.users.len() / 3];
    let got = timed!("get a user by id", {
        let got = table.get(User::key(&want.id)).await.map_err(failed("get a user by id"))?;
        (usize::from(got.is_some()), got)
    });
    check("get a user by id", got.as_ref() == Some(want), || format!("got {got:?}"))?;

    let want = &data.purchases[data.purchases.len() / 4];
    let got = timed!("get a purchase by id", {
        let got =
            table.get(Purchase::key(&want.skill_id, &want.buyer_id)).await.map_err(failed("get a purchase by id"))?;
        (usize::from(got.is_some()), got)
    });
    check("get a purchase by id", got.as_ref() == Some(want), || format!("got {got:?}"))?;

    // A category's skills by popularity: the top 20, then the whole category page by page.
    let category = "documents";
    let mut in_category: Vec<&Skill> = data.skills.iter().filter(|s| s.category == category).collect();
    in_category.sort_by_key(|s| std::cmp::Reverse(s.downloads));
    let p = "a category's top 20 skills by downloads";
    let top = timed!(p, {
        let page = table.query(Skill::gsi1(category)).descending().limit(20).send().await.map_err(failed(p))?;
        (page.items.len(), page)
    });
    let got: Vec<u64> = top.items.iter().map(|s| s.downloads).collect();
    let expect: Vec<u64> = in_category.iter().take(20).map(|s| s.downloads).collect();
    check(p, got == expect, || format!("downloads {got:?}, expected {expect:?}"))?;
    check(p, top.items.iter().all(|s| data.skills.contains(s) && s.category == category), || {
        "a skill differs from the data set".into()
    })?;

    let p = "a whole category, 7 a page, by cursor";
    let all: Vec<Skill> = timed!(p, {
        let mut all = Vec::new();
        let mut cursor = None;
        let mut pages = 0;
        loop {
            let page = table
                .query(Skill::gsi1(category))
                .descending()
                .limit(7)
                .after(cursor)
                .send()
                .await
                .map_err(failed(p))?;
            pages += 1;
            all.extend(page.items);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        check(p, pages == in_category.len().div_ceil(7).max(1) || pages == in_category.len() / 7 + 1, || {
            format!("{pages} pages")
        })?;
        (all.len(), all)
    });
    let ids: BTreeSet<&SkillId> = all.iter().map(|s| &s.id).collect();
    let expect_ids: BTreeSet<&SkillId> = in_category.iter().map(|s| &s.id).collect();
    check(p, all.len() == in_category.len() && ids == expect_ids, || {
        format!("{} items, expected {}", all.len(), in_category.len())
    })?;
    check(p, all.windows(2).all(|w| w[0].downloads >= w[1].downloads), || "not in descending downloads".into())?;

    // A seller's skills, newest first.
    let seller = &data.skills[0].seller_id;
    let mut expect: Vec<&Skill> = data.skills.iter().filter(|s| &s.seller_id == seller).collect();
    expect.sort_by_key(|s| std::cmp::Reverse(s.created_at));
    let p = "a seller's skills, newest first";
    let got = timed!(p, {
        let got = table.query(Skill::gsi2(seller)).descending().all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    check(p, got.iter().collect::<Vec<_>>() == expect, || format!("{} skills, expected {}", got.len(), expect.len()))?;

    // A buyer's library.
    let buyer = &data.purchases[0].buyer_id;
    let mut expect: Vec<&Purchase> = data.purchases.iter().filter(|p| &p.buyer_id == buyer).collect();
    expect.sort_by_key(|s| std::cmp::Reverse(s.purchased_at));
    let p = "a buyer's library, newest first";
    let library = timed!(p, {
        let got = table.query(Purchase::gsi3(buyer)).descending().all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    check(p, library.iter().collect::<Vec<_>>() == expect, || {
        format!("{} purchases, expected {}", library.len(), expect.len())
    })?;

    // The review queue (oldest submission first) and the live marketplace (newest first).
    let mut queue_expect: Vec<&Skill> = data.skills.iter().filter(|s| s.status == SkillStatus::Pending).collect();
    queue_expect.sort_by_key(|s| s.submitted_at);
    let p = "the review queue (GSI4 SKILL#pending)";
    let queue = timed!(p, {
        let got = table.query(Skill::gsi4(&SkillStatus::Pending)).all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    check(p, queue.iter().collect::<Vec<_>>() == queue_expect, || {
        format!("{} skills, expected {}", queue.len(), queue_expect.len())
    })?;

    let mut live_expect: Vec<&Skill> = data.skills.iter().filter(|s| s.status == SkillStatus::Approved).collect();
    live_expect.sort_by_key(|s| std::cmp::Reverse(s.submitted_at));
    let p = "the live marketplace (GSI4 SKILL#approved), newest 25";
    let live = timed!(p, {
        let got =
            table.query(Skill::gsi4(&SkillStatus::Approved)).descending().limit(25).send().await.map_err(failed(p))?;
        (got.items.len(), got.items)
    });
    check(p, live.iter().collect::<Vec<_>>() == live_expect.iter().take(25).copied().collect::<Vec<_>>(), || {
        format!("{} skills differ from the newest approvals", live.len())
    })?;

    // A skill and its reviews in one query of its item collection.
    let mut review_counts: HashMap<&SkillId, usize> = HashMap::new();
    for r in &data.reviews {
        *review_counts.entry(&r.skill_id).or_default() += 1;
    }
    let (busiest, _) = review_counts
        .iter()
        .max_by_key(|(id, n)| (**n, std::cmp::Reverse(**id)))
        .map(|(a, b)| (*a, *b))
        .unwrap_or((&data.skills[0].id, 0));
    let p = "a skill and its reviews (one query of SKILL#<id>)";
    let collection = timed!(p, {
        let c = table.collection(Skill::query(busiest)).send().await.map_err(failed(p))?;
        (c.items().len(), c)
    });
    let page: SkillPage = collection.decode_strict().map_err(failed(p))?;
    let mut expect_reviews: Vec<&Review> = data.reviews.iter().filter(|r| &r.skill_id == busiest).collect();
    expect_reviews.sort_by_key(|r| r.id);
    check(p, Some(&page.skill) == data.skills.iter().find(|s| &s.id == busiest), || format!("skill {:?}", page.skill))?;
    check(p, page.reviews.iter().collect::<Vec<_>>() == expect_reviews, || {
        format!("{} reviews, expected {}", page.reviews.len(), expect_reviews.len())
    })?;

    // Approve the oldest pending skill: one UpdateItem moves it from the queue to the marketplace.
    let p = "approve a skill (one UpdateItem rewrites GSI4PK)";
    if let Some(target) = queue_expect.first() {
        let approved = timed!(p, {
            let s = table
                .update(Skill::key(&target.id))
                .set(Skill::STATUS, &SkillStatus::Approved)
                .set(Skill::SUBMITTED_AT, &target.submitted_at)
                .condition(Skill::STATUS.eq(&SkillStatus::Pending))
                .send()
                .await
                .map_err(failed(p))?;
            (1, s)
        });
        check(p, approved == Skill { status: SkillStatus::Approved, ..(*target).clone() }, || format!("{approved:?}"))?;
        let queue_now = table.query(Skill::gsi4(&SkillStatus::Pending)).all().await.map_err(failed(p))?;
        check(p, queue_now.len() + 1 == queue.len() && !queue_now.iter().any(|s| s.id == target.id), || {
            format!("queue has {} skills after approval, {} before", queue_now.len(), queue.len())
        })?;
        let live_now = table
            .query(Skill::gsi4(&SkillStatus::Approved))
            .sk_eq(
                target
                    .submitted_at
                    .as_ref()
                    .ok_or_else(|| Mismatch { pattern: p, detail: "no submitted_at".into() })?,
            )
            .all()
            .await
            .map_err(failed(p))?;
        check(p, live_now.iter().any(|s| s.id == target.id), || "the approved skill is not in the marketplace".into())?;
        let again = table
            .update(Skill::key(&target.id))
            .set(Skill::STATUS, &SkillStatus::Approved)
            .set(Skill::SUBMITTED_AT, &target.submitted_at)
            .condition(Skill::STATUS.eq(&SkillStatus::Pending))
            .send()
            .await;
        check(p, matches!(again, Err(Error::ConditionFailed { .. })), || format!("second approval gave {again:?}"))?;
    }

    // Record a purchase twice: the second is a no-op.
    let p = "record a purchase twice (create-if-absent)";
    let skill = live_expect.first().ok_or_else(|| Mismatch { pattern: p, detail: "no approved skill".into() })?;
    let buyer = data
        .users
        .iter()
        .find(|u| {
            u.id != skill.seller_id && !data.purchases.iter().any(|x| x.skill_id == skill.id && x.buyer_id == u.id)
        })
        .ok_or_else(|| Mismatch { pattern: p, detail: "every user bought it".into() })?;
    let purchase = Purchase {
        skill_id: skill.id.clone(),
        buyer_id: buyer.id.clone(),
        price_cents: skill.price_cents,
        purchased_at: dynamo_entity::Timestamp::from_millis(1_800_000_000_000)
            .unwrap_or(dynamo_entity::Timestamp::EPOCH),
    };
    let (first, second) = timed!(p, {
        let first = table.create(&purchase).await;
        let second = table.create(&Purchase { price_cents: 1, ..purchase.clone() }).await;
        (2, (first, second))
    });
    check(p, first.is_ok(), || format!("first attempt: {first:?}"))?;
    check(p, matches!(second, Err(Error::AlreadyExists { entity: "Purchase", .. })), || {
        format!("second attempt: {second:?}")
    })?;
    let stored = table.get(Purchase::key(&purchase.skill_id, &purchase.buyer_id)).await.map_err(failed(p))?;
    check(p, stored.as_ref() == Some(&purchase), || format!("stored {stored:?}"))?;
    let lib = table.query(Purchase::gsi3(&buyer.id)).all().await.map_err(failed(p))?;
    let n = lib.iter().filter(|x| x.skill_id == skill.id).count();
    check(p, n == 1, || format!("the buyer's library lists it {n} times"))?;

    // Redeem a coupon twice for one user: the second fails.
    let p = "redeem a coupon twice for one user";
    let coupon = data.coupons.first().ok_or_else(|| Mismatch { pattern: p, detail: "no coupon".into() })?;
    let redemption = Redemption {
        code: coupon.code.clone(),
        user_id: buyer.id.clone(),
        redeemed_at: dynamo_entity::Timestamp::from_millis(1_800_000_000_000)
            .unwrap_or(dynamo_entity::Timestamp::EPOCH),
    };
    let (first, second) = timed!(p, {
        let first = table.create(&redemption).await;
        let second = table.create(&redemption).await;
        (2, (first, second))
    });
    check(p, first.is_ok(), || format!("first redemption: {first:?}"))?;
    check(p, matches!(second, Err(Error::AlreadyExists { entity: "Redemption", .. })), || {
        format!("second redemption: {second:?}")
    })?;
    let coupon_items = table.collection(Coupon::query(&coupon.code)).send().await.map_err(failed(p))?;
    let redemptions: Vec<Redemption> = coupon_items.all().map_err(failed(p))?;
    check(p, redemptions == vec![redemption.clone()], || format!("redemptions {redemptions:?}"))?;

    // A user's badges, from the user's item collection.
    let p = "a user's badges";
    let holder = data.badges.first().map(|b| b.user_id.clone()).unwrap_or_else(|| data.users[0].id.clone());
    let badges = timed!(p, {
        let got = table.query(Badge::query(&holder)).all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    let mut expect: Vec<&Badge> = data.badges.iter().filter(|b| b.user_id == holder).collect();
    expect.sort_by_key(|b| b.badge);
    let mut got_sorted: Vec<&Badge> = badges.iter().collect();
    got_sorted.sort_by_key(|b| b.badge);
    check(p, got_sorted == expect, || format!("badges {badges:?}"))?;

    Ok(reports)
}
