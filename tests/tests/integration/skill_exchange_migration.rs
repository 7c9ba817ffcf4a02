//! Skill Exchange gains "a user's reviews, newest first" after launch
//! (`dynamo_entity_examples::skill_exchange::migration`): the data set is loaded with the launch
//! schema, the runner's status and plan are checked, the migrations (GSI6, then the backfill of
//! the reviews' GSI6 keys) are applied, and every user's reviews on GSI6 match the data set.

use crate::common;

use dynamo_entity::migrate::Status;
use dynamo_entity::{Entity, Table, TableDef};
use dynamo_entity_examples::skill_exchange::migration::{self, ReviewV2};
use dynamo_entity_examples::skill_exchange::{self, Dataset, Sizes, SkillExchange};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

#[tokio::test]
async fn a_new_access_pattern_arrives_through_the_migration_runner() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("skill_exchange_migration"));
    table.create_table_from(&SkillExchange::layout().unwrap()).await.unwrap();
    let data = Dataset::generate(42, Sizes::SMALL);
    skill_exchange::scenario::load(&table, &data, 8).await.unwrap();
    let items_before = common::scan_all(&table).await.len();

    let run = migration::run(&table, &data).await.unwrap();
    let ids: Vec<(&str, &str)> = run.before.iter().map(|s| (s.id.as_str(), s.status.word())).collect();
    assert_eq!(ids, [("0001-gsi6", "pending"), ("0002-review-gsi6-keys", "pending")]);
    assert_eq!(run.plan.len(), 2);
    assert_eq!(
        run.plan[0].1,
        [
            format!("table {}: 1 step(s)", table.name()),
            "1. UpdateTable: create GSI GSI6 on GSI6PK (S) / GSI6SK (S), projection ALL, wait until it is ACTIVE"
                .to_owned()
        ]
    );
    assert!(run.plan[1].1[0].starts_with("backfill the secondary index keys of Review items: a parallel scan of ~"));
    assert_eq!(run.applied.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), ["0001-gsi6", "0002-review-gsi6-keys"]);
    assert!(run.after.iter().all(|s| matches!(s.status, Status::Applied { .. })), "{:?}", run.after);
    let report = table.backfill::<ReviewV2>("0002-review-gsi6-keys").status().await.unwrap().unwrap();
    assert!(report.completed, "{report}");
    assert_eq!((report.updated, report.failed, report.vanished), (data.reviews.len() as u64, 0, 0), "{report}");
    assert_eq!(run.pattern.items, data.reviews.len());

    // Every review now has exactly its GSI6 keys; nothing else changed but the records.
    let after = common::scan_all(&table).await;
    let mut reviews = 0;
    for item in &after {
        if item["_type"].as_s().unwrap() == ReviewV2::TYPE {
            assert_eq!(*item, ReviewV2::from_item(item).unwrap().to_item().unwrap());
            assert!(item.contains_key("GSI6PK") && item.contains_key("GSI6SK"));
            reviews += 1;
        }
    }
    assert_eq!(reviews, data.reviews.len());
    // The records: two STEP items and their two entries in the list of migrations run, the
    // backfill's RUN and 4 SEGMENT items.
    assert_eq!(after.len(), items_before + 2 + 2 + 1 + 4);

    // Applied twice: nothing to do.
    let again = migration::migrations().unwrap().apply(&table, &Default::default()).await.unwrap();
    assert!(again.is_empty());
}
