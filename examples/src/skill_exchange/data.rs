//! A deterministic Skill Exchange data set: the same seed gives the same items, so every
//! answer can be checked.

use std::collections::{BTreeMap, HashSet};

use dynamo_entity::Timestamp;

use super::model::*;
use crate::rng::Rng;

/// How many items of each kind to generate.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Users (every user may sell and buy).
    pub users: usize,
    /// Skills.
    pub skills: usize,
    /// Reviews (each by a buyer of the skill).
    pub reviews: usize,
    /// Purchases (distinct buyer and skill pairs, approved skills only).
    pub purchases: usize,
}

impl Sizes {
    /// The full example: 200 users, 1,000 skills, 2,000 reviews, 5,000 purchases.
    pub const FULL: Sizes = Sizes { users: 200, skills: 1000, reviews: 2000, purchases: 5000 };
    /// A small set for tests: 20 users, 60 skills, 80 reviews, 200 purchases.
    pub const SMALL: Sizes = Sizes { users: 20, skills: 60, reviews: 80, purchases: 200 };
}

/// The categories skills are listed in.
pub const CATEGORIES: [&str; 8] = ["documents", "code", "data", "images", "audio", "agents", "research", "writing"];

/// The generated items.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Users, with `sales` equal to the purchases of their skills.
    pub users: Vec<User>,
    /// Skills, with `downloads` equal to their purchases.
    pub skills: Vec<Skill>,
    /// Reviews.
    pub reviews: Vec<Review>,
    /// Purchases.
    pub purchases: Vec<Purchase>,
    /// Coupons.
    pub coupons: Vec<Coupon>,
    /// Badges, as awarded from the data.
    pub badges: Vec<Badge>,
}

fn at(base: Timestamp, secs: i64) -> Timestamp {
    base.add_millis(secs * 1000)
}

impl Dataset {
    /// Generates a data set of `sizes` from `seed`.
    pub fn generate(seed: u64, sizes: Sizes) -> Dataset {
        let mut rng = Rng::new(seed);
        let base = Timestamp::from_millis(1_767_225_600_000).unwrap_or(Timestamp::EPOCH); // 2026-01-01

        let mut users: Vec<User> = (0..sizes.users)
            .map(|i| User {
                id: UserId(format!("u{i:04}")),
                name: format!("User {i}"),
                email: format!("user{i}@example.test"),
                verified: i % 3 == 0,
                sales: 0,
                created_at: at(base, i as i64 * 60),
            })
            .collect();

        let mut skills: Vec<Skill> = (0..sizes.skills)
            .map(|i| {
                let seller = &users[rng.below(users.len() as u64) as usize];
                let created_at = at(base, 86_400 + i as i64 * 37);
                let status = match rng.below(10) {
                    0 => SkillStatus::Draft,
                    1 | 2 => SkillStatus::Pending,
                    _ => SkillStatus::Approved,
                };
                Skill {
                    id: SkillId(format!("s{i:05}")),
                    title: format!("Skill #{i}: {}", ["summarize", "translate", "classify", "extract"][i % 4]),
                    category: CATEGORIES[rng.below(CATEGORIES.len() as u64) as usize].to_owned(),
                    seller_id: seller.id.clone(),
                    status,
                    downloads: 0,
                    price_cents: 100 * (1 + rng.below(50) as u32),
                    created_at,
                    // Submission order differs from creation order.
                    // Unique (the last digits are the index), in an order unlike creation order.
                    submitted_at: (status != SkillStatus::Draft)
                        .then(|| at(base, 90 * 86_400).add_millis(rng.below(1_000_000) as i64 * 100_000 + i as i64)),
                    seller_verified: seller.verified,
                    tags: (0..rng.below(3)).map(|t| format!("tag{t}")).collect(),
                }
            })
            .collect();

        let approved: Vec<usize> =
            skills.iter().enumerate().filter(|(_, s)| s.status == SkillStatus::Approved).map(|(i, _)| i).collect();
        let mut pairs = HashSet::new();
        let mut purchases = Vec::with_capacity(sizes.purchases);
        let max_pairs = approved.len() * users.len().saturating_sub(1);
        while purchases.len() < sizes.purchases.min(max_pairs) {
            let s = *rng.pick(&approved);
            let b = rng.below(users.len() as u64) as usize;
            if users[b].id == skills[s].seller_id || !pairs.insert((s, b)) {
                continue;
            }
            skills[s].downloads += 1;
            let k = purchases.len() as i64;
            purchases.push(Purchase {
                skill_id: skills[s].id.clone(),
                buyer_id: users[b].id.clone(),
                price_cents: skills[s].price_cents,
                purchased_at: at(base, 200 * 86_400 + k * 13),
            });
        }
        let seller_index: BTreeMap<UserId, usize> = users.iter().enumerate().map(|(i, u)| (u.id.clone(), i)).collect();
        for s in &skills {
            users[seller_index[&s.seller_id]].sales += s.downloads;
        }

        let mut next_review: BTreeMap<SkillId, u32> = BTreeMap::new();
        let reviews: Vec<Review> = (0..sizes.reviews.min(purchases.len()))
            .map(|k| {
                let p = &purchases[rng.below(purchases.len() as u64) as usize];
                let n = next_review.entry(p.skill_id.clone()).or_insert(0);
                *n += 1;
                Review {
                    skill_id: p.skill_id.clone(),
                    id: *n,
                    author_id: p.buyer_id.clone(),
                    rating: 1 + rng.below(5) as u8,
                    body: format!("Review {k}: {}", ["great", "useful", "meh", "works"][k % 4]),
                    created_at: at(p.purchased_at, 3600 + k as i64),
                }
            })
            .collect();

        let coupons = ["LAUNCH10", "SPRING25", "STUDENT50"]
            .iter()
            .zip([10u8, 25, 50])
            .map(|(code, off)| Coupon {
                code: (*code).to_owned(),
                percent_off: off,
                expires_at: at(base, 365 * 86_400),
            })
            .collect();

        let badges = Self::award_badges(&users, &skills, &purchases, at(base, 300 * 86_400));
        Dataset { users, skills, reviews, purchases, coupons, badges }
    }

    /// The badges the data earns: Publisher for an approved skill, TopSeller for 50 sales,
    /// Collector for 30 purchases.
    pub fn award_badges(users: &[User], skills: &[Skill], purchases: &[Purchase], when: Timestamp) -> Vec<Badge> {
        let mut badges = Vec::new();
        for u in users {
            let publishes = skills.iter().any(|s| s.seller_id == u.id && s.status == SkillStatus::Approved);
            let bought = purchases.iter().filter(|p| p.buyer_id == u.id).count();
            for (earned, badge) in [
                (publishes, BadgeType::Publisher),
                (u.sales >= 50, BadgeType::TopSeller),
                (bought >= 30, BadgeType::Collector),
            ] {
                if earned {
                    badges.push(Badge { user_id: u.id.clone(), badge, awarded_at: when });
                }
            }
        }
        badges
    }

    /// Total number of items the data set writes.
    pub fn item_count(&self) -> usize {
        self.users.len()
            + self.skills.len()
            + self.reviews.len()
            + self.purchases.len()
            + self.coupons.len()
            + self.badges.len()
    }
}
