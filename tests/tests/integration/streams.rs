//! DynamoDB Streams records from DynamoDB Local, and a Lambda event, decoded into the
//! Skill Exchange table enum.

use crate::common;

use std::time::Duration;

use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use dynamo_entity::query::Decoded;
use dynamo_entity::stream::{Change, ChangeKind};
use dynamo_entity::{Entity, Timestamp};
use dynamo_entity_examples::skill_exchange::{AnyItem, Skill, SkillId, SkillStatus, UserId, schemas};

fn skill() -> Skill {
    Skill {
        id: SkillId("s1".into()),
        title: "t".into(),
        category: "code".into(),
        seller_id: UserId("u1".into()),
        status: SkillStatus::Pending,
        downloads: 0,
        price_cents: 500,
        created_at: Timestamp::parse("2025-01-01T00:00:00.000Z").unwrap(),
        submitted_at: Some(Timestamp::parse("2025-01-02T00:00:00.000Z").unwrap()),
        seller_verified: false,
        tags: vec![],
    }
}

#[tokio::test]
async fn records_from_a_real_stream_decode_into_the_table_enum() {
    let table = common::table("streams", &schemas()).await;
    table
        .client()
        .update_table()
        .table_name(table.name())
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();

    let s = skill();
    table.put(&s).await.unwrap();
    let approved = table
        .update(Skill::key(&s.id))
        .set(Skill::STATUS, &SkillStatus::Approved)
        .set(Skill::SUBMITTED_AT, &s.submitted_at)
        .send()
        .await
        .unwrap()
        .unwrap();
    table.delete(Skill::key(&s.id)).await.unwrap();
    // An item of a type the enum does not name, at a key of no entity the enum names.
    let mut legacy = s.to_item().unwrap();
    legacy.insert("_type".into(), aws_sdk_dynamodb::types::AttributeValue::S("Legacy".into()));
    legacy.insert("PK".into(), aws_sdk_dynamodb::types::AttributeValue::S("LEGACY#s1".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(legacy)).send().await.unwrap();

    let server = dynamo_entity_local::LocalDynamoDb::shared().await.unwrap();
    let streams = server.streams_client();
    let arn = table
        .client()
        .describe_table()
        .table_name(table.name())
        .send()
        .await
        .unwrap()
        .table
        .and_then(|t| t.latest_stream_arn)
        .expect("the table has a stream");
    let description = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    let shards = description.stream_description.unwrap().shards.unwrap_or_default();
    let mut records = Vec::new();
    for shard in shards {
        let mut iterator = streams
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(shard.shard_id.unwrap())
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .unwrap()
            .shard_iterator;
        // Read until the shard has given its records (DynamoDB Local answers at once).
        for _ in 0..5 {
            let Some(it) = iterator.take() else { break };
            let out = streams.get_records().shard_iterator(it).send().await.unwrap();
            let got = out.records.unwrap_or_default();
            let empty = got.is_empty();
            records.extend(got);
            iterator = out.next_shard_iterator;
            if empty && records.len() >= 4 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let decoded: Vec<Option<Change<AnyItem>>> =
        records.iter().map(|r| Change::<AnyItem>::from_sdk(r).unwrap()).collect();
    let key = "PK=SKILL#s1 SK=META".to_owned();
    assert_eq!(
        decoded,
        vec![
            Some(Change {
                kind: ChangeKind::Insert,
                key: key.clone(),
                old: None,
                new: Some(AnyItem::Skill(s.clone()))
            }),
            Some(Change {
                kind: ChangeKind::Modify,
                key: key.clone(),
                old: Some(AnyItem::Skill(s.clone())),
                new: Some(AnyItem::Skill(approved.clone()))
            }),
            Some(Change { kind: ChangeKind::Remove, key, old: Some(AnyItem::Skill(approved)), new: None }),
            None, // the Legacy item: an entity type the enum does not name
        ]
    );
}

#[test]
fn a_lambda_event_decodes_into_the_table_enum() {
    let s = skill();
    let image = serde_dynamo::Item::from(s.to_item().unwrap());
    let keys = serde_dynamo::Item::from(s.primary_key().unwrap().to_item());
    let event = serde_json::json!({
        "Records": [{
            "eventID": "1",
            "eventName": "INSERT",
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": {
                "ApproximateCreationDateTime": 1735689600,
                "Keys": keys,
                "NewImage": image,
                "SequenceNumber": "100",
                "SizeBytes": 200,
                "StreamViewType": "NEW_AND_OLD_IMAGES"
            },
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/skill-exchange/stream/2025-01-01T00:00:00.000"
        }, {
            "eventID": "2",
            "eventName": "TRUNCATE",
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": { "ApproximateCreationDateTime": 1735689600, "Keys": keys, "SizeBytes": 10 }
        }]
    });
    let event: aws_lambda_events::event::dynamodb::Event = serde_json::from_value(event).unwrap();
    let change = Change::<AnyItem>::from_lambda(&event.records[0]).unwrap();
    assert_eq!(
        change,
        Some(Change {
            kind: ChangeKind::Insert,
            key: "PK=SKILL#s1 SK=META".into(),
            old: None,
            new: Some(AnyItem::Skill(s))
        })
    );
    let err = Change::<AnyItem>::from_lambda(&event.records[1]).unwrap_err();
    assert_eq!(err.to_string(), "invalid request: unknown stream event name `TRUNCATE`");
}

#[test]
fn an_item_overwritten_by_another_entity_keeps_the_named_side() {
    let s = skill();
    let item = s.to_item().unwrap();
    let keys = s.primary_key().unwrap().to_item();
    // A review written over the skill's item (decoded as a review, it fails), then an item of
    // a type no entity has (reported as a get of the skill's key would refuse it).
    let mut review = item.clone();
    review.insert("_type".into(), aws_sdk_dynamodb::types::AttributeValue::S("Review".into()));
    let err = Change::<AnyItem>::from_images(ChangeKind::Modify, &keys, Some(&item), Some(&review)).unwrap_err();
    assert_eq!(err.to_string(), "cannot decode Review PK=SKILL#s1 SK=META: attribute `id`: expected type N, found S");
    let mut legacy = item.clone();
    legacy.insert("_type".into(), aws_sdk_dynamodb::types::AttributeValue::S("Legacy".into()));
    let wrong = "item PK=SKILL#s1 SK=META has entity type Legacy, expected Skill";
    let err = Change::<AnyItem>::from_images(ChangeKind::Modify, &keys, Some(&item), Some(&legacy)).unwrap_err();
    assert_eq!(err.to_string(), wrong);
    // Lenient, the named side is kept and the other reported.
    let Decoded { value: change, skipped } =
        Change::<AnyItem>::lenient().from_images(ChangeKind::Modify, &keys, Some(&item), Some(&legacy)).unwrap();
    assert_eq!(
        change,
        Some(Change {
            kind: ChangeKind::Modify,
            key: "PK=SKILL#s1 SK=META".into(),
            old: Some(AnyItem::Skill(s)),
            new: None
        })
    );
    assert_eq!(skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [wrong]);
    // Both sides of a type the enum does not name, at a key of no entity it names: no change.
    let mut elsewhere = legacy.clone();
    elsewhere.insert("PK".into(), aws_sdk_dynamodb::types::AttributeValue::S("LEGACY#s1".into()));
    let none = Change::<AnyItem>::from_images(ChangeKind::Modify, &keys, Some(&elsewhere), Some(&elsewhere)).unwrap();
    assert_eq!(none, None);
    let err = Change::<AnyItem>::from_images(ChangeKind::Remove, &dynamo_entity::Item::new(), None, None).unwrap_err();
    assert_eq!(err.to_string(), "invalid request: a stream record without keys or images");
}

#[test]
fn a_lenient_record_reports_an_image_that_does_not_decode() {
    let s = skill();
    let item = s.to_item().unwrap();
    let mut broken = item.clone();
    broken.insert("downloads".into(), aws_sdk_dynamodb::types::AttributeValue::S("many".into()));
    let keys = s.primary_key().unwrap().to_item();
    // Strict: the record fails.
    let err = Change::<AnyItem>::from_images(ChangeKind::Modify, &keys, Some(&item), Some(&broken)).unwrap_err();
    assert!(matches!(err, dynamo_entity::Error::Decode { .. }), "{err:?}");
    // Lenient: the side that decodes is kept, the other is reported with its key.
    let Decoded { value: change, skipped } =
        Change::<AnyItem>::lenient().from_images(ChangeKind::Modify, &keys, Some(&item), Some(&broken)).unwrap();
    assert_eq!(
        change,
        Some(Change {
            kind: ChangeKind::Modify,
            key: "PK=SKILL#s1 SK=META".into(),
            old: Some(AnyItem::Skill(s)),
            new: None
        })
    );
    assert_eq!(skipped.len(), 1);
    assert_eq!((skipped[0].key.as_str(), &skipped[0].item), ("PK=SKILL#s1 SK=META", &broken));
    assert!(matches!(skipped[0].error, dynamo_entity::Error::Decode { .. }), "{:?}", skipped[0].error);
    // No side decodes: no change, one report.
    let Decoded { value: change, skipped } =
        Change::<AnyItem>::lenient().from_images(ChangeKind::Insert, &keys, None, Some(&broken)).unwrap();
    assert_eq!((change, skipped.len()), (None, 1));
}
