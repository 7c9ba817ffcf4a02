//! Skill Exchange: a two-sided marketplace for reusable AI skills on one DynamoDB table.
//!
//! | entity | PK | SK | indexes |
//! |---|---|---|---|
//! | [`User`] | `USER#<id>` | `PROFILE` | GSI5 `LEADERBOARD` / `<sales>`; `email` unique |
//! | [`Badge`] | `USER#<user_id>` | `BADGE#<badge>` | |
//! | [`Skill`] | `SKILL#<id>` | `META` | GSI1 `CAT#<category>` / `<downloads>`, GSI2 `SELLER#<seller_id>` / `<created_at>`, GSI4 `SKILL#<status>` / `<submitted_at>` |
//! | [`Review`] | `SKILL#<skill_id>` | `REVIEW#<id>` | |
//! | [`Purchase`] | `PURCHASE#<skill_id>#<buyer_id>` | `META` | GSI3 `BUYER#<buyer_id>` / `<purchased_at>` |
//! | [`Coupon`] | `COUPON#<code>` | `META` | |
//! | [`Redemption`] | `COUPON#<code>` | `USED#<user_id>` | |

pub mod data;
pub mod model;
pub mod scenario;

pub use data::{Dataset, Sizes};
pub use model::*;
pub use scenario::{Mismatch, PatternReport, run};

/// Every entity of the table, for [`Table::create_table`](dynamo_entity::Table::create_table).
pub fn schemas() -> Vec<&'static dynamo_entity::EntitySchema> {
    use dynamo_entity::Entity;
    vec![
        User::schema(),
        Badge::schema(),
        Skill::schema(),
        Review::schema(),
        Purchase::schema(),
        Coupon::schema(),
        Redemption::schema(),
    ]
}

/// The table's design document: key attributes, entities, the access-pattern matrix and a
/// Mermaid diagram (`examples/skill_exchange/DESIGN.md`; a test fails when it is stale).
///
/// # Errors
/// When the entities disagree on a key attribute's type.
pub fn design_markdown() -> Result<String, dynamo_entity::Error> {
    Ok(dynamo_entity::design::TableLayout::new(&schemas())?.markdown("Skill Exchange"))
}
