//! DynamoDB's refusals that DynamoDB Local never produces, injected at the SDK's HTTP layer
//! (`dynamo_entity_local::fault`, [`Fault::Service`]) and read back typed: throttling with its
//! reasons and the request's partition ([`Error::Throttled`]), the replicated write conflict of
//! a multi-Region strongly consistent table ([`Error::ReplicatedWriteConflict`], retried by
//! the batches), and the text of other service errors without the SDK's repeated metadata.
//! The faulty client has the SDK's own retries off, so each injected answer is the one the
//! library sees.

use crate::common;

use std::time::Duration;

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use dynamo_entity::batch::{RetryPolicy, UnprocessedReason};
use dynamo_entity::error::{ThrottleLimit, ThrottledAccess, ThrottledResource, ThrottlingReason};
use dynamo_entity::{Entity, Error, Table};
use dynamo_entity_local::fault::{Fault, FaultInjector, FaultRule, Injected, ServiceError};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "COUNTER#<name>", sk = "META", gsi1 = "BOARD#<board>", gsi1_sk = "<name>")]
struct Counter {
    name: String,
    board: String,
    hits: u64,
}

fn counter(name: &str) -> Counter {
    Counter { name: name.to_owned(), board: "main".to_owned(), hits: 0 }
}

const TABLE_ARN: &str = "arn:aws:dynamodb:us-east-1:123456789012:table/Counters";
const GSI_ARN: &str = "arn:aws:dynamodb:us-east-1:123456789012:table/Counters/index/GSI1";

async fn tables(test: &str) -> (Table, Table, FaultInjector) {
    let plain = common::table(test, &[Counter::schema()]).await;
    let faults = FaultInjector::new(3);
    let config = faults.config_builder(plain.client().config()).retry_config(RetryConfig::disabled()).build();
    let faulty = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    (plain, faulty, faults)
}

#[tokio::test]
async fn a_throttled_write_names_its_reasons_and_partition() {
    let (plain, table, faults) = tables("throttled_put").await;
    let hot = ServiceError::provisioned_throughput_exceeded(&[("TableWriteKeyRangeThroughputExceeded", TABLE_ARN)]);
    faults.add(FaultRule::new(Fault::Service(hot)).on("PutItem").times(1));

    let err = table.put(&counter("home")).await.unwrap_err();
    let Error::Throttled { operation, exception, reasons, entity, partition, source } = &err else { panic!("{err:?}") };
    assert_eq!((*operation, *exception, *entity), ("PutItem", "ProvisionedThroughputExceededException", "Counter"));
    assert_eq!(partition, "PK=COUNTER#home");
    assert_eq!(
        source.message(),
        Some("The level of configured provisioned throughput for the table was exceeded. (injected)")
    );
    assert_eq!(reasons, &[ThrottlingReason::new("TableWriteKeyRangeThroughputExceeded", Some(TABLE_ARN))]);
    let r = &reasons[0];
    assert_eq!(
        (r.resource, r.access, r.limit, r.table(), r.index()),
        (Some(ThrottledResource::Table), Some(ThrottledAccess::Write), ThrottleLimit::KeyRange, Some("Counters"), None)
    );
    assert!(err.is_retryable());
    assert_eq!(
        err.to_string(),
        "DynamoDB throttled PutItem of Counter on partition PK=COUNTER#home (ProvisionedThroughputExceededException: \
         The level of configured provisioned throughput for the table was exceeded. (injected)): table Counters: \
         writes over one partition's throughput; the requests go to too few partition key values: spread them \
         (write sharding, see the design lint's hot-partition advice)"
    );
    assert_eq!(faults.requests_for("PutItem")[0].injected, Some(Injected::ProvisionedThroughputExceeded));
    assert_eq!(faults.counts().provisioned_throughput_exceeded, 1);
    // Nothing was written; the next put (no fault left) is.
    assert_eq!(plain.get(Counter::key("home")).await.unwrap(), None);
    table.put(&counter("home")).await.unwrap();
    assert_eq!(plain.get(Counter::key("home")).await.unwrap(), Some(counter("home")));
}

#[tokio::test]
async fn a_throttled_update_and_query_name_their_partitions() {
    let (plain, table, faults) = tables("throttled_update").await;
    plain.put(&counter("a")).await.unwrap();
    let quota = ServiceError::throttling(&[
        ("TableWriteAccountLimitExceeded", TABLE_ARN),
        ("IndexWriteMaxOnDemandThroughputExceeded", GSI_ARN),
    ]);
    faults.add(FaultRule::new(Fault::Service(quota)).on("UpdateItem").times(1));
    let err = table.update(Counter::key("a")).add(Counter::HITS, &1).send().await.unwrap_err();
    let Error::Throttled { operation, exception, reasons, entity, partition, .. } = &err else { panic!("{err:?}") };
    assert_eq!((*operation, *exception, *entity), ("UpdateItem", "ThrottlingException", "Counter"));
    assert_eq!(partition, "PK=COUNTER#a");
    let limits: Vec<_> = reasons.iter().map(|r| (r.resource, r.limit, r.index())).collect();
    assert_eq!(
        limits,
        [
            (Some(ThrottledResource::Table), ThrottleLimit::AccountLimit, None),
            (Some(ThrottledResource::Index), ThrottleLimit::MaxOnDemandThroughput, Some("GSI1")),
        ]
    );
    assert_eq!(
        err.to_string(),
        "DynamoDB throttled UpdateItem of Counter on partition PK=COUNTER#a (ThrottlingException: Throughput \
         exceeds the current capacity of your table or index. (injected)): table Counters: writes over the \
         account's per-table quota; index GSI1 of table Counters: writes over the configured on-demand maximum"
    );
    assert_eq!(plain.get(Counter::key("a")).await.unwrap().unwrap().hits, 0);

    let hot = ServiceError::throttling(&[("IndexReadKeyRangeThroughputExceeded", GSI_ARN)]);
    faults.add(FaultRule::new(Fault::Service(hot)).on("Query").times(1));
    let err = table.query(Counter::gsi1("main")).send().await.unwrap_err();
    let Error::Throttled { operation, partition, reasons, .. } = &err else { panic!("{err:?}") };
    assert_eq!((*operation, partition.as_str()), ("Query", "GSI1PK=BOARD#main"));
    assert_eq!((reasons[0].access, reasons[0].limit), (Some(ThrottledAccess::Read), ThrottleLimit::KeyRange));
    // Without a fault the same query reads the item.
    assert_eq!(table.query(Counter::gsi1("main")).send().await.unwrap().items, vec![counter("a")]);
}

#[tokio::test]
async fn a_replicated_write_conflict_is_typed_and_retried_by_batches() {
    let (plain, table, faults) = tables("replicated_conflict").await;
    faults.add(FaultRule::new(Fault::Service(ServiceError::replicated_write_conflict())).on("PutItem").times(1));
    let err = table.put(&counter("x")).await.unwrap_err();
    let Error::ReplicatedWriteConflict { operation, entity, key, source } = &err else { panic!("{err:?}") };
    assert_eq!((*operation, *entity, key.as_str()), ("PutItem", "Counter", "PK=COUNTER#x SK=META"));
    assert!(matches!(**source, aws_sdk_dynamodb::Error::ReplicatedWriteConflictException(_)), "{source:?}");
    assert_eq!(
        source.message(),
        Some("The request conflicts with a replicated write in progress on the same item. (injected)")
    );
    assert!(err.is_retryable());
    assert_eq!(
        err.to_string(),
        "DynamoDB PutItem of Counter PK=COUNTER#x SK=META: a write of the same item from another Region was in \
         progress (ReplicatedWriteConflictException: The request conflicts with a replicated write in progress on \
         the same item. (injected)); retryable"
    );
    assert_eq!(faults.counts().service_errors, 1);
    assert_eq!(faults.requests_for("PutItem")[0].injected, Some(Injected::ServiceError));

    // A batch retries it with its policy: two conflicts, then the write.
    faults.add(FaultRule::new(Fault::Service(ServiceError::replicated_write_conflict())).on("BatchWriteItem").times(2));
    let things: Vec<Counter> = ["b", "c"].iter().map(|n| counter(n)).collect();
    let policy = RetryPolicy::default().max_attempts(3).base_delay(Duration::from_millis(1));
    let outcome = table.batch_write().put_all(&things).retry(policy).send().await.unwrap();
    assert_eq!((outcome.written, outcome.requests, outcome.retries), (2, 3, 2));
    assert_eq!(plain.get(Counter::key("c")).await.unwrap(), Some(counter("c")));

    // Throttled every time: the outcome keeps the typed throttling of the last attempt.
    let hot = ServiceError::throttling(&[("TableWriteKeyRangeThroughputExceeded", TABLE_ARN)]);
    faults.add(FaultRule::new(Fault::Service(hot)).on("BatchWriteItem"));
    let policy = RetryPolicy::default().max_attempts(2).base_delay(Duration::from_millis(1));
    let outcome = table.batch_write().put_all(&[counter("d")]).retry(policy).send().await.unwrap();
    assert_eq!((outcome.written, outcome.requests, outcome.unprocessed.len()), (0, 2, 1));
    let reason = &outcome.unprocessed[0].reason;
    let UnprocessedReason::Failed { attempts: 2, error } = reason else { panic!("{reason:?}") };
    let Error::Throttled { operation: "BatchWriteItem", entity: "", partition, reasons, .. } = &**error else {
        panic!("{error:?}")
    };
    assert_eq!((partition.as_str(), reasons[0].limit), ("", ThrottleLimit::KeyRange));
    assert_eq!(plain.get(Counter::key("d")).await.unwrap(), None);
}

#[tokio::test]
async fn a_service_error_reads_once_without_the_sdk_metadata() {
    let (_plain, table, faults) = tables("sdk_text").await;
    let refused = ServiceError::new(400, "com.amazonaws.dynamodb.v20120810#ValidationException", "One or more bad");
    faults.add(FaultRule::new(Fault::Service(refused)).on("GetItem").times(1));
    let err = table.get(Counter::key("a")).await.unwrap_err();
    assert!(matches!(err, Error::Sdk { operation: "GetItem", .. }), "{err:?}");
    assert!(!err.is_retryable());
    assert_eq!(
        err.to_string(),
        "DynamoDB GetItem failed: ValidationException: One or more bad (request id dynamo-entity-fault-injection)"
    );

    // A real answer of the engine: its code and message, once. The message's words are the
    // engine's (DynamoDB documents the code, not the text): read with the SDK alone.
    let missing = Table::new(table.client().clone(), "no-such-table-for-text");
    let err = missing.get(Counter::key("a")).await.unwrap_err();
    let text = err.to_string();
    let raw = table
        .client()
        .get_item()
        .table_name("no-such-table-for-text")
        .key("PK", aws_sdk_dynamodb::types::AttributeValue::S("COUNTER#a".into()))
        .key("SK", aws_sdk_dynamodb::types::AttributeValue::S("META".into()))
        .send()
        .await
        .unwrap_err();
    let message = aws_sdk_dynamodb::error::ProvideErrorMetadata::message(&raw).unwrap().to_owned();
    assert!(!message.is_empty());
    assert!(
        text.starts_with(&format!("DynamoDB GetItem failed: ResourceNotFoundException: {message} (request id ")),
        "{text}"
    );
    assert!(!text.contains("ErrorMetadata"), "{text}");
    assert_eq!(text.matches("ResourceNotFoundException").count(), 1, "{text}");
}
