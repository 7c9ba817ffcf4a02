//! Concurrency soak of the Skill Exchange model against DynamoDB Local: many tasks run mixed
//! operations on one table at once, contending for the same items, then the table is read back
//! (strongly consistent scan) and its invariants are checked against what the tasks were told:
//!
//! - every skill's `downloads` equals its purchase items and the purchases that succeeded, each
//!   seller's `sales` equals the downloads of their skills, and GSI1 (keyed on `category` /
//!   `downloads` themselves) lists each category's skills in the order of their downloads;
//! - each (skill, buyer) pair is bought at most once, and every pair tried is bought;
//! - each pending skill tried is approved exactly once and leaves the review queue (GSI4);
//! - exactly one guard item per e-mail address in use, owned by the user holding it, none
//!   orphaned; the users are the loaded ones plus the sign-ups that succeeded;
//! - no user redeems a coupon twice, and each coupon's redemption items equal the redemptions
//!   that succeeded.
//!
//! Size: `SOAK_TASKS` tasks (default 64) of `SOAK_OPS` operations each (default 40, which keeps
//! CI quick). The full run is `SOAK_OPS=1000` (see BENCHMARKS.md, "Reliability"):
//!
//! ```text
//! SOAK_OPS=1000 cargo test --release -p dynamo-entity-tests --test integration -- --nocapture soak::
//! ```

use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::collection::Items;
use dynamo_entity::error::Returned;
use dynamo_entity::transact::CancellationCode;
use dynamo_entity::{Entity, Error, Item, Table, Timestamp};
use dynamo_entity_examples::rng::Rng;
use dynamo_entity_examples::skill_exchange::scenario::{load, record_purchase};
use dynamo_entity_examples::skill_exchange::{
    self, AnyItem, Dataset, Purchase, Redemption, Sizes, Skill, SkillId, SkillStatus, User, UserId,
};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// What one operation was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Outcome {
    /// The operation took effect.
    Done,
    /// Someone else got there first: the purchase, redemption or approval was already recorded,
    /// or the e-mail address was taken. Nothing changed.
    Lost,
    /// A transaction canceled by conflicts more often than its retry bound. Nothing changed.
    GaveUp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    Purchase,
    Approval,
    SignUp,
    EmailChange,
    Redemption,
}

/// What one task did.
#[derive(Default)]
struct TaskLog {
    outcomes: BTreeMap<(Kind, Outcome), usize>,
    /// Purchases recorded, by skill.
    purchases: HashMap<SkillId, u64>,
    /// Every (skill, buyer) pair tried.
    purchase_pairs: BTreeSet<(SkillId, UserId)>,
    /// Skills this task approved, and every skill it tried to approve.
    approved: Vec<SkillId>,
    approval_tried: BTreeSet<SkillId>,
    /// Users created (id, e-mail).
    signed_up: Vec<(UserId, String)>,
    /// Redemptions recorded, and every (coupon, user) pair tried.
    redeemed: Vec<(String, UserId)>,
    redemption_pairs: BTreeSet<(String, UserId)>,
    /// Errors no operation should give.
    unexpected: Vec<String>,
}

impl TaskLog {
    fn count(&mut self, kind: Kind, outcome: Outcome) {
        *self.outcomes.entry((kind, outcome)).or_default() += 1;
    }
}

struct World {
    table: Table,
    data: Dataset,
    approved: Vec<Skill>,
    pending: Vec<Skill>,
    email_pool: usize,
}

fn gave_up(e: &Error) -> bool {
    matches!(e, Error::TransactionCanceled { reasons }
        if reasons.iter().any(|r| r.code == CancellationCode::TransactionConflict))
}

async fn task(world: &World, t: usize, ops: usize) -> TaskLog {
    let mut log = TaskLog::default();
    let mut rng = Rng::new(0x50AC_0000 + t as u64);
    let users = &world.data.users;
    let when = Timestamp::from_millis(1_800_000_000_000 + t as i64 * 1_000_000).unwrap_or(Timestamp::EPOCH);
    for i in 0..ops {
        let roll = rng.below(100);
        if roll < 40 {
            // A purchase: one transaction (purchase if absent, +1 download, +1 sale).
            let skill = rng.pick(&world.approved);
            let mut buyer = rng.pick(users);
            while buyer.id == skill.seller_id {
                buyer = rng.pick(users);
            }
            let purchase = Purchase {
                skill_id: skill.id.clone(),
                buyer_id: buyer.id.clone(),
                price_cents: skill.price_cents,
                purchased_at: when.add_millis(i as i64),
            };
            log.purchase_pairs.insert((skill.id.clone(), buyer.id.clone()));
            match record_purchase(&world.table, &purchase, &skill.seller_id).await {
                Ok(()) => {
                    log.count(Kind::Purchase, Outcome::Done);
                    *log.purchases.entry(skill.id.clone()).or_default() += 1;
                }
                Err(Error::TransactionCanceled { reasons })
                    if reasons.iter().any(|r| r.index == 0 && r.code == CancellationCode::ConditionalCheckFailed) =>
                {
                    log.count(Kind::Purchase, Outcome::Lost)
                }
                Err(e) if gave_up(&e) => log.count(Kind::Purchase, Outcome::GaveUp),
                Err(e) => log.unexpected.push(format!("purchase {purchase:?}: {e}")),
            }
        } else if roll < 50 {
            // An approval of a pending skill: conditional on it still being pending.
            let skill = rng.pick(&world.pending);
            log.approval_tried.insert(skill.id.clone());
            let result = world
                .table
                .update(Skill::key(&skill.id))
                .set(Skill::STATUS, &SkillStatus::Approved)
                .set(Skill::SUBMITTED_AT, &skill.submitted_at)
                .condition(Skill::STATUS.eq(&SkillStatus::Pending))
                .send()
                .await;
            match result {
                Ok(Returned::Decoded(s)) if s.status == SkillStatus::Approved => {
                    log.count(Kind::Approval, Outcome::Done);
                    log.approved.push(skill.id.clone());
                }
                Ok(s) => log.unexpected.push(format!("approval of {} returned {s:?}", skill.id.0)),
                Err(Error::ConditionFailed { .. }) => log.count(Kind::Approval, Outcome::Lost),
                Err(e) => log.unexpected.push(format!("approval of {}: {e}", skill.id.0)),
            }
        } else if roll < 75 {
            // A sign-up (7 in 10) or an e-mail change (3 in 10) to a contested address.
            let email = format!("contested{}@example.test", rng.below(world.email_pool as u64));
            if rng.below(10) < 7 {
                let user = User {
                    id: UserId(format!("t{t:02}-{i:04}")),
                    name: format!("Task {t} user {i}"),
                    email: email.clone(),
                    verified: false,
                    sales: 0,
                    created_at: when,
                };
                match world.table.create(&user).await {
                    Ok(()) => {
                        log.count(Kind::SignUp, Outcome::Done);
                        log.signed_up.push((user.id.clone(), email));
                    }
                    Err(Error::UniqueViolation { entity: "User", field: "email", value }) if value == email => {
                        log.count(Kind::SignUp, Outcome::Lost)
                    }
                    Err(e) if gave_up(&e) => log.count(Kind::SignUp, Outcome::GaveUp),
                    Err(e) => log.unexpected.push(format!("sign-up {}: {e}", user.id.0)),
                }
            } else {
                let user = rng.pick(users);
                match world.table.update(User::key(&user.id)).set_unique(User::EMAIL, &email).send().await {
                    Ok(()) => log.count(Kind::EmailChange, Outcome::Done),
                    Err(Error::UniqueViolation { entity: "User", field: "email", value }) if value == email => {
                        log.count(Kind::EmailChange, Outcome::Lost)
                    }
                    Err(e) if gave_up(&e) => log.count(Kind::EmailChange, Outcome::GaveUp),
                    Err(e) => log.unexpected.push(format!("e-mail change of {}: {e}", user.id.0)),
                }
            }
        } else {
            // A coupon redemption: at most one per user and coupon, by its key.
            let coupon = rng.pick(&world.data.coupons);
            let user = rng.pick(users);
            let redemption = Redemption { code: coupon.code.clone(), user_id: user.id.clone(), redeemed_at: when };
            log.redemption_pairs.insert((coupon.code.clone(), user.id.clone()));
            match world.table.create(&redemption).await {
                Ok(()) => {
                    log.count(Kind::Redemption, Outcome::Done);
                    log.redeemed.push((coupon.code.clone(), user.id.clone()));
                }
                Err(Error::AlreadyExists { entity: "Redemption", .. }) => log.count(Kind::Redemption, Outcome::Lost),
                Err(e) => log.unexpected.push(format!("redemption {redemption:?}: {e}")),
            }
        }
    }
    log
}

fn s<'a>(item: &'a Item, name: &str) -> &'a str {
    match item.get(name) {
        Some(AttributeValue::S(s)) => s,
        other => panic!("attribute {name} of {item:?} is {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_four_tasks_of_mixed_operations_keep_every_invariant() {
    let tasks = env_usize("SOAK_TASKS", 64);
    let ops = env_usize("SOAK_OPS", 40);
    let table = common::table("soak", &skill_exchange::schemas()).await;
    let data = Dataset::generate(2026, Sizes { users: 64, skills: 96, reviews: 0, purchases: 0 });
    load(&table, &data, 16).await.expect("the data set loads");
    let approved: Vec<Skill> = data.skills.iter().filter(|s| s.status == SkillStatus::Approved).cloned().collect();
    let pending: Vec<Skill> = data.skills.iter().filter(|s| s.status == SkillStatus::Pending).cloned().collect();
    assert!(!approved.is_empty() && !pending.is_empty());
    // About four sign-up attempts per contested address.
    let email_pool = (tasks * ops / 16).max(8);
    let world = std::sync::Arc::new(World { table: table.clone(), data, approved, pending, email_pool });

    let started = Instant::now();
    let handles: Vec<_> = (0..tasks)
        .map(|t| {
            let world = world.clone();
            tokio::spawn(async move { task(&world, t, ops).await })
        })
        .collect();
    let mut logs = Vec::new();
    for h in handles {
        logs.push(h.await.expect("no task panicked"));
    }
    let elapsed = started.elapsed();

    // What the tasks were told, merged.
    let mut outcomes: BTreeMap<(Kind, Outcome), usize> = BTreeMap::new();
    let mut purchases_told: HashMap<SkillId, u64> = HashMap::new();
    let mut purchase_pairs = BTreeSet::new();
    let mut approvals_told: HashMap<SkillId, usize> = HashMap::new();
    let mut approval_tried = BTreeSet::new();
    let mut signed_up = Vec::new();
    let mut redeemed: HashMap<(String, UserId), usize> = HashMap::new();
    let mut redemption_pairs = BTreeSet::new();
    let mut unexpected = Vec::new();
    for log in logs {
        for (k, n) in log.outcomes {
            *outcomes.entry(k).or_default() += n;
        }
        for (skill, n) in log.purchases {
            *purchases_told.entry(skill).or_default() += n;
        }
        purchase_pairs.extend(log.purchase_pairs);
        for skill in log.approved {
            *approvals_told.entry(skill).or_default() += 1;
        }
        approval_tried.extend(log.approval_tried);
        signed_up.extend(log.signed_up);
        for pair in log.redeemed {
            *redeemed.entry(pair).or_default() += 1;
        }
        redemption_pairs.extend(log.redemption_pairs);
        unexpected.extend(log.unexpected);
    }
    let total: usize = outcomes.values().sum();
    println!(
        "soak: {tasks} tasks x {ops} operations: {total} operations answered in {:.1} s ({:.0} operations/s)",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64().max(1e-9)
    );
    for ((kind, outcome), n) in &outcomes {
        println!("  {kind:?} {outcome:?}: {n}");
    }
    assert!(
        unexpected.is_empty(),
        "{} unexpected errors, the first: {:?}",
        unexpected.len(),
        &unexpected[..3.min(unexpected.len())]
    );

    // The table as it is now.
    let raw = common::scan_all(&table).await;
    let any: Vec<AnyItem> = Items::from(raw.clone()).decode_each().expect("every item decodes");
    let mut skills: BTreeMap<SkillId, Skill> = BTreeMap::new();
    let mut users: BTreeMap<UserId, User> = BTreeMap::new();
    let mut purchase_items: HashMap<SkillId, u64> = HashMap::new();
    let mut bought_pairs = BTreeSet::new();
    let mut redemptions: Vec<Redemption> = Vec::new();
    for item in any {
        match item {
            AnyItem::Skill(s) => {
                skills.insert(s.id.clone(), s);
            }
            AnyItem::User(u) => {
                users.insert(u.id.clone(), u);
            }
            AnyItem::Purchase(p) => {
                *purchase_items.entry(p.skill_id.clone()).or_default() += 1;
                assert!(bought_pairs.insert((p.skill_id, p.buyer_id)), "a pair bought twice");
            }
            AnyItem::Redemption(r) => redemptions.push(r),
            AnyItem::Badge(_) | AnyItem::Coupon(_) | AnyItem::Review(_) => {}
        }
    }

    // Purchases: downloads = purchase items = purchases recorded; sales = downloads of the
    // seller's skills; every pair tried was bought (by someone).
    let mut downloads_total = 0;
    for (id, skill) in &skills {
        let items = purchase_items.get(id).copied().unwrap_or(0);
        let told = purchases_told.get(id).copied().unwrap_or(0);
        assert_eq!((skill.downloads, items), (told, told), "skill {}: downloads, purchase items, purchases", id.0);
        downloads_total += skill.downloads;
    }
    let mut sales: HashMap<&UserId, u64> = HashMap::new();
    for skill in skills.values() {
        *sales.entry(&skill.seller_id).or_default() += skill.downloads;
    }
    for user in users.values() {
        assert_eq!(user.sales, sales.get(&user.id).copied().unwrap_or(0), "sales of {}", user.id.0);
    }
    assert_eq!(bought_pairs, purchase_pairs, "every pair tried is bought exactly once");
    // GSI1 is keyed on `downloads` itself: each category's skills come back in the order of
    // their final download counts, and no skill carries a GSI1PK / GSI1SK to keep in step.
    for item in raw.iter().filter(|i| collection_type(i) == Some(Skill::TYPE)) {
        assert!(!item.contains_key("GSI1PK") && !item.contains_key("GSI1SK"), "GSI1 keys on {}", s(item, "PK"));
    }
    let categories: BTreeSet<&str> = skills.values().map(|s| s.category.as_str()).collect();
    for category in categories {
        let listed: Vec<(u64, SkillId)> =
            table.query(Skill::gsi1(category)).all().await.unwrap().into_iter().map(|s| (s.downloads, s.id)).collect();
        let mut expected: Vec<(u64, SkillId)> =
            skills.values().filter(|s| s.category == category).map(|s| (s.downloads, s.id.clone())).collect();
        expected.sort_by_key(|(d, _)| *d);
        let downloads = |v: &[(u64, SkillId)]| v.iter().map(|(d, _)| *d).collect::<Vec<_>>();
        assert_eq!(downloads(&listed), downloads(&expected), "GSI1 of category {category}");
        let ids = |v: &[(u64, SkillId)]| v.iter().map(|(_, id)| id.clone()).collect::<BTreeSet<_>>();
        assert_eq!(ids(&listed), ids(&expected), "GSI1 of category {category}");
    }

    // Approvals: each tried pending skill approved once; the queue holds the others.
    assert!(approvals_told.values().all(|&n| n == 1), "a skill approved twice: {approvals_told:?}");
    let approved_now: BTreeSet<SkillId> = approvals_told.keys().cloned().collect();
    assert_eq!(approved_now, approval_tried, "every skill tried was approved once");
    let queue: BTreeSet<SkillId> = table
        .query(Skill::gsi4(&SkillStatus::Pending))
        .all()
        .await
        .expect("the review queue")
        .into_iter()
        .map(|s| s.id)
        .collect();
    let still_pending: BTreeSet<SkillId> =
        world.pending.iter().map(|s| s.id.clone()).filter(|id| !approval_tried.contains(id)).collect();
    assert_eq!(queue, still_pending, "the review queue");
    for id in &approved_now {
        assert_eq!(skills[id].status, SkillStatus::Approved);
    }

    // Sign-ups and e-mail changes: one guard per address in use, owned by its user.
    assert_eq!(users.len(), world.data.users.len() + signed_up.len(), "users: loaded + signed up");
    for (id, email) in &signed_up {
        assert_eq!(users.get(id).map(|u| u.email.as_str()), Some(email.as_str()), "user {}", id.0);
    }
    let guards: Vec<&Item> = raw.iter().filter(|i| collection_type(i) == Some("_unique")).collect();
    let mut guarded: BTreeMap<String, String> = BTreeMap::new();
    let by_pk: HashMap<String, &User> = users
        .values()
        .map(|u| match User::key(&u.id).into_encoded().expect("a user key").pk {
            AttributeValue::S(pk) => (pk, u),
            other => panic!("a user's PK is {other:?}"),
        })
        .collect();
    for guard in &guards {
        let owner_pk = s(guard, "ownerPK");
        let value = s(guard, "value").to_owned();
        let owner = by_pk.get(owner_pk).unwrap_or_else(|| panic!("orphan guard {value}: owner {owner_pk} is gone"));
        assert_eq!(owner.email, value, "guard of {value} owned by {}, whose e-mail is {}", owner.id.0, owner.email);
        assert!(guarded.insert(value.clone(), owner.id.0.clone()).is_none(), "two guards of {value}");
    }
    let emails: BTreeMap<String, String> = users.values().map(|u| (u.email.clone(), u.id.0.clone())).collect();
    assert_eq!(emails.len(), users.len(), "two users share an e-mail address");
    assert_eq!(guarded, emails, "exactly one guard per address in use, none orphaned");

    // Coupons: no pair redeemed twice; counts exact; every pair tried redeemed.
    assert!(redeemed.values().all(|&n| n == 1), "a user redeemed a coupon twice");
    let mut per_coupon_items: BTreeMap<&str, usize> = BTreeMap::new();
    let mut redeemed_pairs = BTreeSet::new();
    for r in &redemptions {
        *per_coupon_items.entry(&r.code).or_default() += 1;
        assert!(redeemed_pairs.insert((r.code.clone(), r.user_id.clone())));
    }
    let mut per_coupon_told: BTreeMap<&str, usize> = BTreeMap::new();
    for (code, _) in redeemed.keys() {
        *per_coupon_told.entry(code).or_default() += 1;
    }
    assert_eq!(per_coupon_items, per_coupon_told, "redemptions per coupon");
    assert_eq!(redeemed_pairs, redemption_pairs, "every pair tried is redeemed exactly once");

    println!(
        "invariants hold: {} skills, downloads {downloads_total} = purchase items {} = purchases recorded; \
         {} of {} pending skills approved once each, {} left in the queue; {} users, {} guards, none orphaned; \
         {} redemptions ({}), none twice",
        skills.len(),
        purchase_items.values().sum::<u64>(),
        approved_now.len(),
        world.pending.len(),
        queue.len(),
        users.len(),
        guards.len(),
        redemptions.len(),
        per_coupon_items.iter().map(|(c, n)| format!("{c} {n}")).collect::<Vec<_>>().join(", "),
    );
}

fn collection_type(item: &Item) -> Option<&str> {
    dynamo_entity::collection::type_of(item)
}
