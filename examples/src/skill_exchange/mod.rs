//! Skill Exchange: a two-sided marketplace for reusable AI skills on one DynamoDB table.
//!
//! | entity | PK | SK | indexes |
//! |---|---|---|---|
//! | [`User`] | `USER#<id>` | `PROFILE` | GSI5 `LEADERBOARD` / `<sales>`; `email` unique |
//! | [`Badge`] | `USER#<user_id>` | `BADGE#<badge>` | |
//! | [`Skill`] | `SKILL#<id>` | `META` | GSI1 on its own attributes `category` (S) / `downloads` (N), GSI2 `SELLER#<seller_id>` / `<created_at>`, GSI4 `SKILL#<status>#<shard(id, 8)>` / `<submitted_at>` |
//! | [`Review`] | `SKILL#<skill_id>` | `REVIEW#<id>` | |
//! | [`Purchase`] | `PURCHASE#<skill_id>#<buyer_id>` | `META` | GSI3 `BUYER#<buyer_id>` / `<purchased_at>` |
//! | [`Coupon`] | `COUPON#<code>` | `META` | |
//! | [`Redemption`] | `COUPON#<code>` | `USED#<user_id>` | |

pub mod data;
pub mod migration;
pub mod model;
pub mod scenario;

pub use data::{Dataset, Sizes};
pub use model::*;
pub use scenario::{Mismatch, PatternReport, run};

/// Every entity of the table, as [`SkillExchange`] declares them, for
/// [`Table::create_table`](dynamo_entity::Table::create_table).
pub fn schemas() -> Vec<&'static dynamo_entity::schema::EntitySchema> {
    <SkillExchange as dynamo_entity::TableDef>::ENTITIES.to_vec()
}

/// The table's design document: key attributes, entities, the access-pattern matrix and a
/// Mermaid diagram (`examples/skill_exchange/DESIGN.md`; a test fails when it is stale).
///
/// # Errors
/// When the entities disagree on a key attribute's type.
pub fn design_markdown() -> Result<String, dynamo_entity::Error> {
    Ok(<SkillExchange as dynamo_entity::TableDef>::layout()?.markdown("Skill Exchange"))
}

/// The table as an AWS NoSQL Workbench data model with three sample items per entity from the
/// data set of seed 42 (`examples/skill_exchange/skill_exchange.workbench.json`; a test fails
/// when it is stale). The skills are one of each status, so the sparse GSI4 shows a draft
/// left out. The attribute `id` is a string in most entities and a number in [`Review`]; the
/// model declares it a string (see `WorkbenchModel::mixed_types`).
///
/// # Errors
/// When the entities disagree on a key attribute's type or a sample cannot be encoded.
pub fn workbench_json() -> Result<serde_json::Value, dynamo_entity::Error> {
    dynamo_entity::schema::TableLayout::new(&schemas())?.workbench(&workbench_model()?)
}

/// The NoSQL Workbench model of [`workbench_json`], whose sample items the design page
/// ([`design_html`]) draws its item collections from.
///
/// # Errors
/// When a sample cannot be encoded.
pub fn workbench_model() -> Result<dynamo_entity::design::workbench::WorkbenchModel, dynamo_entity::Error> {
    use dynamo_entity::design::workbench::WorkbenchModel;
    let data = Dataset::generate(42, Sizes::SMALL);
    let skills = sample_skills(&data);
    let redemptions: Vec<Redemption> = data
        .coupons
        .iter()
        .zip(&data.users)
        .take(3)
        .map(|(c, u)| Redemption { code: c.code.clone(), user_id: u.id.clone(), redeemed_at: u.created_at })
        .collect();
    let created = dynamo_entity::Timestamp::from_millis(1_767_225_600_000).unwrap_or(dynamo_entity::Timestamp::EPOCH);
    let model = WorkbenchModel::new("Skill Exchange", "skill-exchange")
        .author("dynamo-entity")
        .description("A two-sided marketplace for reusable AI skills on one DynamoDB table, exported from its entities")
        .dated(created)
        // `id` is a string in User and Skill but a number in Review.
        .mixed_types(true)
        .samples(data.users.iter().take(3))?
        .samples(data.badges.iter().take(3))?
        .samples(skills)?
        .samples(data.reviews.iter().take(3))?
        .samples(data.purchases.iter().take(3))?
        .samples(data.coupons.iter().take(3))?
        .samples(&redemptions)?;
    Ok(model)
}

/// The sample skills: the first of each status.
fn sample_skills(data: &Dataset) -> Vec<&Skill> {
    let first = |status: SkillStatus| data.skills.iter().find(|s| s.status == status);
    [SkillStatus::Draft, SkillStatus::Pending, SkillStatus::Approved].into_iter().filter_map(first).collect()
}

/// The table's design page (`examples/skill_exchange/DESIGN.html`; a test fails when it is
/// stale, and the browser test renders it): the access patterns, the diagram, and the item
/// collections and index views of the sample items of [`workbench_model`], plus up to two
/// reviews of each sampled skill, so that a skill's item collection shows the skill with its
/// reviews.
///
/// # Errors
/// When the entities disagree on a key attribute's type or a sample cannot be encoded.
pub fn design_html() -> Result<String, dynamo_entity::Error> {
    use dynamo_entity::Entity as _;
    let model = workbench_model()?;
    let data = Dataset::generate(42, Sizes::SMALL);
    let mut items = model.items().to_vec();
    for skill in sample_skills(&data) {
        for review in data.reviews.iter().filter(|r| r.skill_id == skill.id).take(2) {
            items.push(review.to_item()?);
        }
    }
    Ok(<SkillExchange as dynamo_entity::TableDef>::layout()?.html("Skill Exchange", &items))
}
