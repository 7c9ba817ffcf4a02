//! Skill Exchange after launch: a new access pattern, "a user's reviews, newest first", served by
//! a new GSI (GSI6 `AUTHOR#<author_id>` / `<created_at>`), brought to a table already loaded with
//! the launch schema through the migration runner.
//!
//! * [`ReviewV2`] is [`Review`] with the GSI6 template (same entity type name, same fields, same
//!   primary key): the code after the change.
//! * [`after_launch_layout`] is [`SkillExchange`]'s declared layout with `Review` replaced by
//!   [`ReviewV2`] and GSI6 declared (projection `ALL`), built from the declaration at run time.
//! * [`migrations`] declares the two steps: `0001-gsi6` creates GSI6 (`UpdateTable`, waiting
//!   until it is `ACTIVE`), `0002-review-gsi6-keys` backfills GSI6PK / GSI6SK of every review
//!   written before.
//! * [`run`] loads the data set with today's schema, shows the runner's status and plan, applies
//!   the migrations, and checks every user's reviews, newest first, on GSI6 against the data set.
//!
//! The same migrations run from a command line of the application's own:
//! `MigrationCli::new("skill-exchange-migrate", table, migrations())` (feature `cli`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use dynamo_entity::migrate::{Applied, MigrationStatus, Migrations, RunOptions, Wait};
use dynamo_entity::schema::{GsiDecl, Index, Projection, TableLayout};
use dynamo_entity::{Entity, TableDef, Timestamp};

use super::Dataset;
use super::model::{Review, SkillExchange, SkillId, UserId};
use crate::report::{Mismatch, PatternReport, failed};

/// A review after the change: [`Review`] with "a user's reviews, newest first" on GSI6.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    name = "Review",
    pk = "SKILL#<skill_id>",
    sk = "REVIEW#<id>",
    gsi6 = "AUTHOR#<author_id>",
    gsi6_sk = "<created_at>"
)]
pub struct ReviewV2 {
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

impl From<&Review> for ReviewV2 {
    fn from(r: &Review) -> ReviewV2 {
        ReviewV2 {
            skill_id: r.skill_id.clone(),
            id: r.id,
            author_id: r.author_id.clone(),
            rating: r.rating,
            body: r.body.clone(),
            created_at: r.created_at,
        }
    }
}

/// [`SkillExchange`]'s declared layout after the change: `Review` is [`ReviewV2`], and GSI6
/// (projection `ALL`) is declared beside the launch indexes.
///
/// # Errors
/// As [`TableLayout::declared`].
pub fn after_launch_layout() -> Result<TableLayout, dynamo_entity::Error> {
    let entities: Vec<_> =
        SkillExchange::ENTITIES.iter().map(|e| if e.name == Review::TYPE { ReviewV2::SCHEMA } else { *e }).collect();
    let mut indexes = SkillExchange::INDEXES.to_vec();
    indexes.push(GsiDecl { index: Index::Gsi(6), projection: Projection::All, pk: None, sk: None });
    TableLayout::declared(&entities, &indexes)
}

/// The migrations of the change, in order: create GSI6, then backfill the reviews' GSI6 keys.
///
/// # Errors
/// As [`after_launch_layout`].
pub fn migrations() -> Result<Migrations, dynamo_entity::Error> {
    Ok(Migrations::new(after_launch_layout()?)
        .wait(Wait { timeout: Duration::from_secs(600), poll: Duration::from_millis(200) })
        .apply_layout("0001-gsi6")
        .backfill::<ReviewV2>("0002-review-gsi6-keys", |b| b.segments(4).concurrency(4)))
}

/// What [`run`] saw: the status before, the plan, what was applied, the status after, and the
/// check of the new access pattern.
#[derive(Debug)]
pub struct MigrationRun {
    /// Status lines before the run.
    pub before: Vec<MigrationStatus>,
    /// The plan, per migration id.
    pub plan: Vec<(String, Vec<String>)>,
    /// What `apply` did.
    pub applied: Vec<Applied>,
    /// Status lines after the run.
    pub after: Vec<MigrationStatus>,
    /// The check of "a user's reviews, newest first" on GSI6.
    pub pattern: PatternReport,
}

/// Runs the change on `table`, which holds the data set `data` written with the launch schema
/// (`scenario::load`): status, plan, apply through the runner, status, then every user's
/// reviews, newest first, from GSI6, checked against the data set.
///
/// # Errors
/// [`Mismatch`] naming the step that failed or the first answer that differs.
pub async fn run(table: &dynamo_entity::Table, data: &Dataset) -> Result<MigrationRun, Mismatch> {
    let migrations = migrations().map_err(failed("the after-launch layout"))?;
    let before = migrations.status(table).await.map_err(failed("migration status"))?;
    let plan = migrations.plan(table, None).await.map_err(failed("migration plan"))?;
    let applied = migrations.apply(table, &RunOptions::default()).await.map_err(failed("migration apply"))?;
    let after = migrations.status(table).await.map_err(failed("migration status"))?;

    let p = "a user's reviews, newest first (GSI6, after the migration)";
    let start = Instant::now();
    let mut want: BTreeMap<&UserId, Vec<ReviewV2>> = BTreeMap::new();
    for r in &data.reviews {
        want.entry(&r.author_id).or_default().push(ReviewV2::from(r));
    }
    for user in &data.users {
        let mut expected = want.remove(&user.id).unwrap_or_default();
        // Newest first: the order of the creation times is checked, and the reviews as a set
        // (two written in the same millisecond may come in either order).
        expected.sort_by_key(|r| std::cmp::Reverse(r.created_at));
        let got = table.query(ReviewV2::gsi6(&user.id)).descending().all().await.map_err(failed(p))?;
        let order = |v: &[ReviewV2]| v.iter().map(|r| (r.created_at, r.skill_id.0.clone(), r.id)).collect::<Vec<_>>();
        let times = |v: &[ReviewV2]| v.iter().map(|r| r.created_at).collect::<Vec<_>>();
        if times(&got) != times(&expected) || got.len() != expected.len() {
            return Err(Mismatch {
                pattern: p,
                detail: format!("user {}: got {:?}, expected {:?}", user.id.0, order(&got), order(&expected)),
            });
        }
        let mut a = got.clone();
        let mut b = expected.clone();
        let key = |r: &ReviewV2| (r.skill_id.0.clone(), r.id);
        a.sort_by_key(key);
        b.sort_by_key(key);
        if a != b {
            return Err(Mismatch { pattern: p, detail: format!("user {}: other reviews", user.id.0) });
        }
    }
    let pattern = PatternReport { name: p, items: data.reviews.len(), micros: start.elapsed().as_micros() };
    Ok(MigrationRun { before, plan, applied, after, pattern })
}
