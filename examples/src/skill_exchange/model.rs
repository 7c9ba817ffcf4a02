//! The entities of Skill Exchange.

use dynamo_entity::{Collection, Entity, KeyPart, TableDef, Timestamp};

/// A user id such as `u0042`.
#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(pub String);

/// A skill id such as `s00042`.
#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SkillId(pub String);

/// Where a skill is in moderation: `draft` → `pending` → `approved`. Stored as the lower-case
/// name, which is also the GSI4 partition (`SKILL#pending#<shard>` is the review queue,
/// `SKILL#approved#<shard>` the live marketplace; each is write-sharded over 8 partitions by
/// skill id, since three statuses alone would make three hot partitions).
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkillStatus {
    /// Being written by the seller; not in GSI4 at all (no `submitted_at`).
    Draft,
    /// Submitted, waiting in the review queue.
    Pending,
    /// Live in the marketplace.
    Approved,
}

/// A badge a user can hold.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BadgeType {
    /// Published at least one approved skill.
    Publisher,
    /// Sold at least 50 copies.
    TopSeller,
    /// Bought at least 30 skills.
    Collector,
}

/// A user's profile (`USER#<id>` / `PROFILE`), on the sellers' leaderboard (GSI5, by sales).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi5 = "LEADERBOARD", gsi5_sk = "<sales>")]
pub struct User {
    /// The user id.
    pub id: UserId,
    /// Display name.
    pub name: String,
    /// E-mail address, unique across users (a guard item per address).
    #[entity(unique)]
    pub email: String,
    /// Whether the seller is verified (denormalized onto their skills).
    pub verified: bool,
    /// Copies of this user's skills sold, the GSI5 sort key (the leaderboard).
    pub sales: u64,
    /// Sign-up time.
    pub created_at: Timestamp,
}

/// A badge held by a user (`USER#<user_id>` / `BADGE#<badge>`): in the user's item collection.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "BADGE#<badge>")]
pub struct Badge {
    /// The holder.
    pub user_id: UserId,
    /// Which badge.
    pub badge: BadgeType,
    /// When it was awarded.
    pub awarded_at: Timestamp,
}

/// A listing (`SKILL#<id>` / `META`).
///
/// GSI1, the category browse, is keyed natively on the item's own attributes `category` (S)
/// and `downloads` (N): there is no `GSI1PK` / `GSI1SK` to build, and a purchase that adds 1 to
/// `downloads` moves the skill inside GSI1 with no key to rewrite. GSI2 and GSI4 are key
/// templates (`GSI2PK` / `GSI2SK`, `GSI4PK` / `GSI4SK`): GSI4's partition key carries a literal
/// prefix and a shard suffix, which only a template can build.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "SKILL#<id>",
    sk = "META",
    gsi1(pk(category), sk(downloads)),
    gsi2 = "SELLER#<seller_id>",
    gsi2_sk = "<created_at>",
    gsi4 = "SKILL#<status>#<shard(id, 8)>",
    gsi4_sk = "<submitted_at>"
)]
pub struct Skill {
    /// The skill id.
    pub id: SkillId,
    /// Title shown on the card.
    pub title: String,
    /// Category, GSI1's partition key attribute (browse by popularity).
    pub category: String,
    /// The seller, the GSI2 partition (a seller's skills by creation time).
    pub seller_id: UserId,
    /// Moderation status, the GSI4 partition (with a shard suffix from `id`).
    pub status: SkillStatus,
    /// Copies sold, GSI1's sort key attribute (a number).
    pub downloads: u64,
    /// Price in cents.
    pub price_cents: u32,
    /// Creation time, the GSI2 sort key.
    pub created_at: Timestamp,
    /// When it was submitted for review, the GSI4 sort key; `None` for drafts, which keeps
    /// them out of GSI4 (sparse index).
    pub submitted_at: Option<Timestamp>,
    /// The seller's verified mark, denormalized for the card.
    #[entity(rename = "sellerVerified")]
    pub seller_verified: bool,
    /// Free-form tags.
    pub tags: Vec<String>,
}

/// A review of a skill (`SKILL#<skill_id>` / `REVIEW#<id>`): in the skill's item collection.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SKILL#<skill_id>", sk = "REVIEW#<id>")]
pub struct Review {
    /// The reviewed skill.
    pub skill_id: SkillId,
    /// The review id, unique within the skill.
    pub id: u32,
    /// The reviewer.
    pub author_id: UserId,
    /// 1 to 5 stars.
    pub rating: u8,
    /// Review text.
    pub body: String,
    /// When it was written.
    pub created_at: Timestamp,
}

/// A purchase (`PURCHASE#<skill_id>#<buyer_id>` / `META`): the key makes it unique per buyer
/// and skill, so recording it is idempotent.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "PURCHASE#<skill_id>#<buyer_id>", sk = "META", gsi3 = "BUYER#<buyer_id>", gsi3_sk = "<purchased_at>")]
pub struct Purchase {
    /// The skill bought.
    pub skill_id: SkillId,
    /// The buyer, the GSI3 partition ("my library").
    pub buyer_id: UserId,
    /// Price paid in cents.
    pub price_cents: u32,
    /// When, the GSI3 sort key.
    pub purchased_at: Timestamp,
}

/// A discount code (`COUPON#<code>` / `META`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "COUPON#<code>", sk = "META")]
pub struct Coupon {
    /// The code, such as `LAUNCH10`.
    pub code: String,
    /// Percentage off.
    pub percent_off: u8,
    /// Valid until.
    pub expires_at: Timestamp,
}

/// One redemption of a coupon by a user (`COUPON#<code>` / `USED#<user_id>`): at most one per
/// user, by its key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "COUPON#<code>", sk = "USED#<user_id>")]
pub struct Redemption {
    /// The coupon code.
    pub code: String,
    /// Who redeemed it.
    pub user_id: UserId,
    /// When.
    pub redeemed_at: Timestamp,
}

/// A skill's item collection (`PK = SKILL#<id>`): the listing and its reviews, from one query.
#[derive(Collection, Debug, Clone, PartialEq)]
pub struct SkillPage {
    /// The listing (`SK = META`); a page without it is an error.
    pub skill: Skill,
    /// Its reviews (`SK = REVIEW#<id>`), in review id order.
    pub reviews: Vec<Review>,
}

/// A user's item collection (`PK = USER#<id>`): the profile and the badges.
#[derive(Collection, Debug, Clone, PartialEq)]
pub struct UserPage {
    /// The profile (`SK = PROFILE`).
    pub user: User,
    /// The badges (`SK = BADGE#<badge>`).
    pub badges: Vec<Badge>,
}

/// The Skill Exchange table: its seven entities and five GSIs (GSI1 keyed on `category` /
/// `downloads`, the others on key templates), checked together at compile
/// time (no two entities can produce the same primary key or read each other's items through a
/// `begins_with` query, every GSI an entity writes is declared, one type per key attribute).
///
/// Every GSI projects `ALL`: each one serves queries that return whole entities. It also
/// generates [`AnyItem`], any item of the table decoded by its entity type attribute (for
/// scans, stream records and exports).
#[derive(TableDef)]
#[table(
    entities(User, Badge, Skill, Review, Purchase, Coupon, Redemption),
    gsi1(projection = all),
    gsi2(projection = all),
    gsi3(projection = all),
    gsi4(projection = all),
    gsi5(projection = all),
    item(name = AnyItem, derive(Debug, Clone, PartialEq)),
)]
pub struct SkillExchange;
