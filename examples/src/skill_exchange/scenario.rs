//! The access patterns of Skill Exchange, each checked against the data set.

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use dynamo_entity::{Error, Table};
use futures::{StreamExt, TryStreamExt};

use super::model::{BadgeType, UserId};

use super::data::Dataset;
use super::model::*;

pub use crate::report::{Mismatch, PatternReport};
use crate::report::{check, failed, timed};

/// Writes every item of the data set: users with `create` (each a transaction that also
/// claims the user's e-mail guard), everything else with batch writes.
///
/// # Errors
/// The first write that fails, or a batch that could not write everything.
pub async fn load(table: &Table, data: &Dataset, concurrency: usize) -> Result<PatternReport, Mismatch> {
    let start = Instant::now();
    futures::stream::iter(&data.users)
        .map(|u| table.create(u))
        .buffer_unordered(concurrency)
        .try_collect::<Vec<()>>()
        .await
        .map_err(failed("load"))?;
    let outcome = table
        .batch_write()
        .put_all(&data.skills)
        .put_all(&data.reviews)
        .put_all(&data.purchases)
        .put_all(&data.coupons)
        .put_all(&data.badges)
        .concurrency(concurrency.clamp(1, 16))
        .send()
        .await
        .map_err(failed("load"))?;
    outcome.check().map_err(failed("load"))?;
    let count = data.users.len() + outcome.written;
    check("load", count == data.item_count(), || format!("wrote {count} items of {}", data.item_count()))?;
    Ok(PatternReport {
        name: "load (users: create + e-mail guard; the rest: BatchWriteItem)",
        items: count,
        micros: start.elapsed().as_micros(),
    })
}

/// Runs every access pattern against a table loaded with `data` and checks each answer.
///
/// # Errors
/// The first answer that differs from the data set.
pub async fn run(table: &Table, data: &Dataset) -> Result<Vec<PatternReport>, Mismatch> {
    let mut reports = Vec::new();
    // Get a skill, a user and a purchase by id.
    let want = &data.skills[data.skills.len() / 2];
    let got = timed!(reports, "get a skill by id", {
        let p = "get a skill by id";
        let got = table.get(Skill::key(&want.id)).await.map_err(failed(p))?;
        (usize::from(got.is_some()), got)
    });
    check("get a skill by id", got.as_ref() == Some(want), || format!("got {got:?}"))?;

    let want = &data.users[data.users.len() / 3];
    let got = timed!(reports, "get a user by id", {
        let got = table.get(User::key(&want.id)).await.map_err(failed("get a user by id"))?;
        (usize::from(got.is_some()), got)
    });
    check("get a user by id", got.as_ref() == Some(want), || format!("got {got:?}"))?;

    let want = &data.purchases[data.purchases.len() / 4];
    let got = timed!(reports, "get a purchase by id", {
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
    let top = timed!(reports, p, {
        let page = table.query(Skill::gsi1(category)).descending().max_items(20).send().await.map_err(failed(p))?;
        (page.items.len(), page)
    });
    let got: Vec<u64> = top.items.iter().map(|s| s.downloads).collect();
    let expect: Vec<u64> = in_category.iter().take(20).map(|s| s.downloads).collect();
    check(p, got == expect, || format!("downloads {got:?}, expected {expect:?}"))?;
    check(p, top.items.iter().all(|s| data.skills.contains(s) && s.category == category), || {
        "a skill differs from the data set".into()
    })?;

    let p = "a whole category, 7 a page, by cursor";
    let all: Vec<Skill> = timed!(reports, p, {
        let mut all = Vec::new();
        let mut cursor = None;
        let mut pages = 0;
        loop {
            let page = table
                .query(Skill::gsi1(category))
                .descending()
                .page_items(7)
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
    let got = timed!(reports, p, {
        let got = table.query(Skill::gsi2(seller)).descending().all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    check(p, got.iter().collect::<Vec<_>>() == expect, || format!("{} skills, expected {}", got.len(), expect.len()))?;

    // A buyer's library.
    let buyer = &data.purchases[0].buyer_id;
    let mut expect: Vec<&Purchase> = data.purchases.iter().filter(|p| &p.buyer_id == buyer).collect();
    expect.sort_by_key(|s| std::cmp::Reverse(s.purchased_at));
    let p = "a buyer's library, newest first";
    let library = timed!(reports, p, {
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
    let queue = timed!(reports, p, {
        let got = table.query(Skill::gsi4(&SkillStatus::Pending)).all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    check(p, queue.iter().collect::<Vec<_>>() == queue_expect, || {
        format!("{} skills, expected {}", queue.len(), queue_expect.len())
    })?;

    let mut live_expect: Vec<&Skill> = data.skills.iter().filter(|s| s.status == SkillStatus::Approved).collect();
    live_expect.sort_by_key(|s| std::cmp::Reverse(s.submitted_at));
    let p = "the live marketplace (GSI4 SKILL#approved), newest 25";
    let live = timed!(reports, p, {
        let got = table
            .query(Skill::gsi4(&SkillStatus::Approved))
            .descending()
            .max_items(25)
            .send()
            .await
            .map_err(failed(p))?;
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
    let collection = timed!(reports, p, {
        let c = table.collection(Skill::query(busiest)).send().await.map_err(failed(p))?;
        (c.items().len(), c)
    });
    let page: SkillPage = collection.strict().decode().map_err(failed(p))?;
    let mut expect_reviews: Vec<&Review> = data.reviews.iter().filter(|r| &r.skill_id == busiest).collect();
    expect_reviews.sort_by_key(|r| r.id);
    check(p, Some(&page.skill) == data.skills.iter().find(|s| &s.id == busiest), || format!("skill {:?}", page.skill))?;
    check(p, page.reviews.iter().collect::<Vec<_>>() == expect_reviews, || {
        format!("{} reviews, expected {}", page.reviews.len(), expect_reviews.len())
    })?;

    // Approve the oldest pending skill: one UpdateItem moves it from the queue to the marketplace.
    let p = "approve a skill (one UpdateItem rewrites GSI4PK)";
    if let Some(target) = queue_expect.first() {
        let approved = timed!(reports, p, {
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

    // A purchase is one transaction: create the purchase (conditional), add 1 to the skill's
    // downloads and 1 to the seller's sales. 50 concurrent attempts record it once.
    let p = "a purchase: 50 concurrent attempts, one transaction each";
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
    let outcomes = timed!(reports, p, {
        let attempts = (0..50).map(|_| record_purchase(table, &purchase, &skill.seller_id));
        let outcomes = futures::future::join_all(attempts).await;
        (outcomes.len(), outcomes)
    });
    let wins = outcomes.iter().filter(|o| o.is_ok()).count();
    let already = outcomes
        .iter()
        .filter(|o| {
            matches!(o, Err(Error::TransactionCanceled { reasons })
                if reasons.iter().any(|r| r.index == 0 && r.code == dynamo_entity::transact::CancellationCode::ConditionalCheckFailed))
        })
        .count();
    check(p, wins == 1 && already == 49, || format!("{wins} recorded, {already} found it recorded: {outcomes:?}"))?;
    let stored = table.get(Skill::key(&skill.id)).await.map_err(failed(p))?;
    check(p, stored.as_ref().map(|s| s.downloads) == Some(skill.downloads + 1), || {
        format!("downloads now {stored:?}")
    })?;
    let seller_now = table.get(User::key(&skill.seller_id)).await.map_err(failed(p))?;
    let seller_before = data.users.iter().find(|u| u.id == skill.seller_id).map(|u| u.sales).unwrap_or(0);
    check(p, seller_now.as_ref().map(|u| u.sales) == Some(seller_before + 1), || format!("seller now {seller_now:?}"))?;
    let lib = table.query(Purchase::gsi3(&buyer.id)).all().await.map_err(failed(p))?;
    let n = lib.iter().filter(|x| x.skill_id == skill.id).count();
    check(p, n == 1, || format!("the buyer's library lists it {n} times"))?;
    // GSI1 (a category by downloads) is keyed on the item's own `downloads`: the skill moved
    // inside it with the counter, with no key to rewrite.
    let by_downloads = table
        .query(Skill::gsi1(&skill.category).downloads_eq(&(skill.downloads + 1)))
        .all()
        .await
        .map_err(failed(p))?;
    check(p, by_downloads.iter().any(|s| s.id == skill.id), || "GSI1 still lists the old download count".into())?;

    // E-mails are unique: a sign-up with a taken address is refused, and the address finds its user.
    let p = "sign up with a taken e-mail; look a user up by e-mail";
    let taken = &data.users[1];
    let (signup, found) = timed!(reports, p, {
        let newcomer = User { id: UserId("u-new".into()), email: taken.email.clone(), ..taken.clone() };
        let signup = table.create(&newcomer).await;
        let found = table.get_by_unique(User::EMAIL, &taken.email).await.map_err(failed(p))?;
        (2, (signup, found))
    });
    check(
        p,
        matches!(&signup, Err(Error::UniqueViolation { entity: "User", field: "email", value }) if *value == taken.email),
        || format!("sign-up gave {signup:?}"),
    )?;
    check(p, found.as_ref().map(|u| &u.id) == Some(&taken.id), || format!("lookup gave {found:?}"))?;

    // Redeem a coupon twice for one user: the second fails.
    let p = "redeem a coupon twice for one user";
    let coupon = data.coupons.first().ok_or_else(|| Mismatch { pattern: p, detail: "no coupon".into() })?;
    let redemption = Redemption {
        code: coupon.code.clone(),
        user_id: buyer.id.clone(),
        redeemed_at: dynamo_entity::Timestamp::from_millis(1_800_000_000_000)
            .unwrap_or(dynamo_entity::Timestamp::EPOCH),
    };
    let (first, second) = timed!(reports, p, {
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
    let badges = timed!(reports, p, {
        let got = table.query(Badge::query(&holder)).all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    let mut expect: Vec<&Badge> = data.badges.iter().filter(|b| b.user_id == holder).collect();
    expect.sort_by_key(|b| b.badge);
    let mut got_sorted: Vec<&Badge> = badges.iter().collect();
    got_sorted.sort_by_key(|b| b.badge);
    check(p, got_sorted == expect, || format!("badges {badges:?}"))?;

    // The sellers' leaderboard: GSI5 sorted by the sales counter.
    let p = "the sellers' leaderboard, top 10 (GSI5 by sales)";
    let mut sales: Vec<u64> =
        data.users.iter().map(|u| if u.id == skill.seller_id { u.sales + 1 } else { u.sales }).collect();
    sales.sort_unstable_by(|a, b| b.cmp(a));
    let top = timed!(reports, p, {
        let page = table.query(User::gsi5()).descending().max_items(10).send().await.map_err(failed(p))?;
        (page.items.len(), page.items)
    });
    let got: Vec<u64> = top.iter().map(|u| u.sales).collect();
    check(p, got == sales[..10.min(sales.len())], || format!("sales {got:?}, expected {:?}", &sales[..10]))?;

    // The nightly job: verify a creator, re-stamp the denormalized mark on every card of theirs
    // (paging through GSI2, writing back in batches), and recompute every badge.
    let p = "nightly job: verify a seller, re-stamp their skills, recompute badges";
    let seller = data
        .users
        .iter()
        .filter(|u| !u.verified)
        .max_by_key(|u| (data.skills.iter().filter(|s| s.seller_id == u.id).count(), std::cmp::Reverse(u.id.clone())))
        .ok_or_else(|| Mismatch { pattern: p, detail: "every seller is verified".into() })?;
    let restamped = timed!(reports, p, {
        let n = nightly(table, &seller.id).await.map_err(failed(p))?;
        (n, n)
    });
    let cards = table.query(Skill::gsi2(&seller.id)).all().await.map_err(failed(p))?;
    let expected_cards = data.skills.iter().filter(|s| s.seller_id == seller.id).count();
    check(p, restamped == expected_cards && cards.len() == expected_cards, || {
        format!("re-stamped {restamped}, found {} cards, expected {expected_cards}", cards.len())
    })?;
    check(p, cards.iter().all(|s| s.seller_verified), || "a stale card remains".into())?;
    let profile = table.get(User::key(&seller.id)).await.map_err(failed(p))?;
    check(p, profile.as_ref().is_some_and(|u| u.verified), || format!("profile {profile:?}"))?;
    let badges = table.query(Badge::query(&skill.seller_id)).all().await.map_err(failed(p))?;
    check(p, badges.iter().any(|b| b.badge == BadgeType::Publisher), || format!("badges {badges:?}"))?;

    Ok(reports)
}

/// Records a purchase as one transaction: the purchase itself (only if absent), and 1 more
/// download of the skill and 1 more sale of its seller.
///
/// # Errors
/// [`Error::TransactionCanceled`] with reason `ConditionalCheckFailed` at index 0 when the
/// purchase was already recorded: nothing changed.
pub async fn record_purchase(table: &Table, purchase: &Purchase, seller: &UserId) -> Result<(), Error> {
    table
        .transact()
        .create(purchase)
        .update(table.update(Skill::key(&purchase.skill_id)).add(Skill::DOWNLOADS, &1))
        .update(table.update(User::key(seller)).add(User::SALES, &1))
        // Real DynamoDB may cancel concurrent transactions on one item with TransactionConflict;
        // such an attempt is retried and then finds the purchase recorded.
        .retry_conflicts(5)
        .send()
        .await
}

/// The nightly job for one newly verified seller: marks the profile verified, re-stamps
/// `seller_verified` on every skill of theirs ([`Table::restamp`] over GSI2: each stale skill
/// changed by an update of that field alone, so a purchase or edit made meanwhile is kept,
/// resumable under the job's name) and recomputes every user's badges. Returns the number of
/// skills re-stamped.
///
/// # Errors
/// The first failed read or write.
pub async fn nightly(table: &Table, seller: &UserId) -> Result<usize, Error> {
    table.update(User::key(seller)).set(User::VERIFIED, &true).send().await?;
    let report = table
        .restamp(table.query(Skill::gsi2(seller)).page_size(25))
        .set(Skill::SELLER_VERIFIED, &true)
        .resumable(&format!("verified-{}", seller.0))
        .run()
        .await?;
    let restamped = report.stamped as usize;
    // Badges from the table as it is now: every user, skill and purchase (a job like this would
    // read an export; here the partitions are read directly).
    let users = table.scan::<User>().all().await?;
    let skills = table.scan::<Skill>().all().await?;
    let purchases = table.scan::<Purchase>().all().await?;
    let badges = Dataset::award_badges(&users, &skills, &purchases, dynamo_entity::Timestamp::now());
    table.batch_write().put_all(&badges).send().await?.check()?;
    Ok(restamped)
}
