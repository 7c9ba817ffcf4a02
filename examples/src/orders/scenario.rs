//! The access patterns of the Orders service, each checked against the data set, and the
//! stream handler for new orders.

use std::time::Instant;

use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
use aws_sdk_dynamodbstreams::types::{Record, ShardIteratorType};
use dynamo_entity::stream::{Change, ChangeKind};
use dynamo_entity::transact::CancellationCode;
use dynamo_entity::{Error, Table, Timestamp};

use super::data::Dataset;
use super::model::*;

pub use crate::report::{Mismatch, PatternReport};
use crate::report::{check, failed, timed};

/// Places an order: one `TransactWriteItems` that creates the order, only if no order has its
/// id, and adds 1 to the user's `orderCount`. Either both happen or neither.
///
/// # Errors
/// [`Error::TransactionCanceled`] with `ConditionalCheckFailed` at index 0 when the order id is
/// taken (a retried checkout: nothing changed), or at index 1 when the user does not exist.
pub async fn place_order(table: &Table, order: &Order) -> Result<(), Error> {
    table
        .transact()
        .create(order)
        .update(table.update(User::key(&order.user_id)).add(User::ORDER_COUNT, &1))
        .send()
        .await
}

/// What the stream handler did with a batch of records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Processed {
    /// New orders this run confirmed, in record order.
    pub confirmed: Vec<OrderId>,
    /// New orders found confirmed already: a record delivered again.
    pub already_confirmed: Vec<OrderId>,
    /// The total of the orders this run confirmed, in cents.
    pub revenue_cents: u64,
    /// Records of other changes or other entity types, left alone.
    pub ignored: usize,
}

/// The stream handler: decodes each record by its entity type attribute and confirms each new
/// order (`INSERT` of an [`Order`]) with an update conditional on its status still being
/// `placed`, so a record delivered twice confirms once. Everything else (user counters, the
/// handler's own `MODIFY`s, products) is ignored.
///
/// # Errors
/// A record that does not decode, or a failed update (the batch can be retried as a whole).
pub async fn handle_records(table: &Table, records: &[Record]) -> Result<Processed, Error> {
    let mut out = Processed::default();
    for record in records {
        match Change::<AnyItem>::from_sdk(record)? {
            Some(Change { kind: ChangeKind::Insert, new: Some(AnyItem::Order(order)), .. }) => {
                let confirmed = table
                    .update(Order::key(&order.id))
                    .set(Order::STATUS, &OrderStatus::Confirmed)
                    .condition(Order::STATUS.eq(&OrderStatus::Placed))
                    .send()
                    .await;
                match confirmed {
                    Ok(_) => {
                        out.revenue_cents += order.total_cents;
                        out.confirmed.push(order.id);
                    }
                    Err(Error::ConditionFailed { .. }) => out.already_confirmed.push(order.id),
                    Err(e) => return Err(e),
                }
            }
            _ => out.ignored += 1,
        }
    }
    Ok(out)
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Turns on the table's stream (view type `NEW_IMAGE`) and returns its ARN.
///
/// # Errors
/// The SDK's error (such as a `ValidationException` when the stream is already on).
pub async fn enable_stream(table: &Table) -> Result<String, BoxError> {
    let spec =
        StreamSpecification::builder().stream_enabled(true).stream_view_type(StreamViewType::NewImage).build()?;
    let out = table
        .client()
        .update_table()
        .table_name(table.name())
        .stream_specification(spec)
        .send()
        .await
        .map_err(aws_sdk_dynamodb::Error::from)?;
    out.table_description
        .and_then(|t| t.latest_stream_arn)
        .ok_or_else(|| "the table reports no stream after enabling it".into())
}

/// Every record of the stream so far: each shard from its oldest record (`TRIM_HORIZON`) until
/// a read returns nothing (as a Lambda poller would, in one pass).
///
/// # Errors
/// The DynamoDB Streams SDK's error.
pub async fn read_stream(streams: &aws_sdk_dynamodbstreams::Client, arn: &str) -> Result<Vec<Record>, BoxError> {
    let description =
        streams.describe_stream().stream_arn(arn).send().await.map_err(aws_sdk_dynamodbstreams::Error::from)?;
    let shards = description.stream_description.and_then(|d| d.shards).unwrap_or_default();
    let mut records = Vec::new();
    for shard in shards {
        let Some(shard_id) = shard.shard_id else { continue };
        let mut iterator = streams
            .get_shard_iterator()
            .stream_arn(arn)
            .shard_id(shard_id)
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .map_err(aws_sdk_dynamodbstreams::Error::from)?
            .shard_iterator;
        while let Some(it) = iterator.take() {
            let out =
                streams.get_records().shard_iterator(it).send().await.map_err(aws_sdk_dynamodbstreams::Error::from)?;
            let got = out.records.unwrap_or_default();
            if got.is_empty() {
                break;
            }
            records.extend(got);
            iterator = out.next_shard_iterator;
        }
    }
    Ok(records)
}

/// Writes the data set: users with `create` (only if absent), the rest with batch writes.
///
/// # Errors
/// A write that fails, or a batch that could not write everything.
pub async fn load(table: &Table, data: &Dataset, concurrency: usize) -> Result<PatternReport, Mismatch> {
    use futures::{StreamExt, TryStreamExt};
    let start = Instant::now();
    futures::stream::iter(&data.users)
        .map(|u| table.create(u))
        .buffer_unordered(concurrency.max(1))
        .try_collect::<Vec<()>>()
        .await
        .map_err(failed("load"))?;
    let outcome = table
        .batch_write()
        .put_all(&data.products)
        .put_all(&data.orders)
        .concurrency(concurrency.clamp(1, 16))
        .send()
        .await
        .map_err(failed("load"))?;
    outcome.check().map_err(failed("load"))?;
    let count = data.users.len() + outcome.written;
    check("load", count == data.item_count(), || format!("wrote {count} items of {}", data.item_count()))?;
    Ok(PatternReport {
        name: "load (users: PutItem if absent; the rest: BatchWriteItem)",
        items: count,
        micros: start.elapsed().as_micros(),
    })
}

/// Turns on the table's stream, runs every access pattern against a table loaded with `data`,
/// then the stream handler over the records the patterns wrote, and checks each answer.
///
/// # Errors
/// The first answer that differs from the data set.
pub async fn run(
    table: &Table,
    streams: &aws_sdk_dynamodbstreams::Client,
    data: &Dataset,
) -> Result<Vec<PatternReport>, Mismatch> {
    let mut reports = Vec::new();
    let arn = enable_stream(table).await.map_err(failed("enable the stream"))?;

    let p = "get a user (GetItem USER#<id> / PROFILE)";
    let want = &data.users[data.users.len() / 3];
    let got = timed!(reports, p, {
        let got = table.get(User::key(&want.id)).await.map_err(failed(p))?;
        (usize::from(got.is_some()), got)
    });
    check(p, got.as_ref() == Some(want), || format!("got {got:?}"))?;

    let p = "user by e-mail (GSI1 EMAIL#<email>)";
    let want = &data.users[data.users.len() / 2];
    let got = timed!(reports, p, {
        let got = table.query(User::gsi1(&want.email)).all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    check(p, got == vec![want.clone()], || format!("got {got:?}"))?;

    let p = "create a user only if absent (PutItem, attribute_not_exists)";
    let taken = &data.users[1];
    let newcomer = User {
        id: UserId("newcomer".into()),
        name: "New Comer".into(),
        email: "newcomer@example.com".into(),
        order_count: 0,
        created_at: Timestamp::from_millis(1_780_000_000_000).unwrap_or(Timestamp::EPOCH),
    };
    let (again, created) = timed!(reports, p, {
        let again = table.create(&User { name: "Impostor".into(), ..taken.clone() }).await;
        let created = table.create(&newcomer).await;
        (2, (again, created))
    });
    check(p, matches!(&again, Err(Error::AlreadyExists { entity: "User", .. })), || {
        format!("second create: {again:?}")
    })?;
    check(p, created.is_ok(), || format!("create: {created:?}"))?;
    let stored = table.get(User::key(&taken.id)).await.map_err(failed(p))?;
    check(p, stored.as_ref() == Some(taken), || format!("the existing user became {stored:?}"))?;

    let p = "get a product (GetItem PRODUCT#<id> / DETAILS)";
    let want = &data.products[data.products.len() / 2];
    let got = timed!(reports, p, {
        let got = table.get(Product::key(&want.id)).await.map_err(failed(p))?;
        (usize::from(got.is_some()), got)
    });
    check(p, got.as_ref() == Some(want), || format!("got {got:?}"))?;

    let p = "order lookup by id (GetItem ORDER#<id> / DETAILS)";
    let want = &data.orders[data.orders.len() / 2];
    let got = timed!(reports, p, {
        let got = table.get_consistent(Order::key(&want.id)).await.map_err(failed(p))?;
        (usize::from(got.is_some()), got)
    });
    check(p, got.as_ref() == Some(want), || format!("got {got:?}"))?;

    // The first user's order history, newest first, 20 a page by cursor.
    let p = "a user's orders, newest first, 20 a page (GSI2 USER#<id>)";
    let first = &data.users[0];
    let expect = data.orders_of(&first.id);
    let (sizes, got) = timed!(reports, p, {
        let mut got: Vec<Order> = Vec::new();
        let mut sizes = Vec::new();
        let mut cursor = None;
        loop {
            let page = table
                .query(Order::gsi2(&first.id))
                .descending()
                .page_items(20)
                .after(cursor)
                .send()
                .await
                .map_err(failed(p))?;
            sizes.push(page.items.len());
            got.extend(page.items);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        (got.len(), (sizes, got))
    });
    check(p, got.iter().collect::<Vec<_>>() == expect, || format!("{} orders, expected {}", got.len(), expect.len()))?;
    let full = expect.len() / 20;
    check(p, sizes.len() <= full + 1 && sizes.iter().take(full).all(|&n| n == 20), || format!("pages {sizes:?}"))?;

    // A date range of the same history: GSI2SK BETWEEN two times.
    let p = "a user's orders between two times (GSI2 sort-key BETWEEN)";
    let ascending: Vec<&Order> = expect.iter().rev().copied().collect();
    let (from, to) = (ascending[ascending.len() / 4].created_at, ascending[ascending.len() * 3 / 4].created_at);
    let got = timed!(reports, p, {
        let got = table.query(Order::gsi2(&first.id)).sk_between(&from, &to).all().await.map_err(failed(p))?;
        (got.len(), got)
    });
    let want: Vec<&Order> = ascending.iter().filter(|o| o.created_at >= from && o.created_at <= to).copied().collect();
    check(p, got.iter().collect::<Vec<_>>() == want, || format!("{} orders, expected {}", got.len(), want.len()))?;

    // Checkout: five new orders, each with its user's counter; a retried checkout changes nothing.
    let p = "place an order with the user's order counter (one TransactWriteItems)";
    let product = &data.products[0];
    let placed: Vec<Order> = (0..5)
        .map(|k| {
            let user = if k < 3 { &newcomer.id } else { &first.id };
            let quantity = k + 1;
            Order {
                id: OrderId(format!("new{k:03}")),
                user_id: user.clone(),
                lines: vec![Line { product: product.id.clone(), quantity, unit_cents: product.price_cents }],
                total_cents: u64::from(quantity) * product.price_cents,
                status: OrderStatus::Placed,
                created_at: Timestamp::from_millis(1_790_000_000_000 + i64::from(k) * 1000).unwrap_or(Timestamp::EPOCH),
            }
        })
        .collect();
    let retry = timed!(reports, p, {
        for order in &placed {
            place_order(table, order).await.map_err(failed(p))?;
        }
        let retry = place_order(table, &placed[0]).await;
        (placed.len() + 1, retry)
    });
    check(
        p,
        matches!(&retry, Err(Error::TransactionCanceled { reasons })
            if reasons.iter().any(|r| r.index == 0 && r.code == CancellationCode::ConditionalCheckFailed)),
        || format!("the retried checkout gave {retry:?}"),
    )?;
    let counts = (
        table.get_consistent(User::key(&newcomer.id)).await.map_err(failed(p))?.map(|u| u.order_count),
        table.get_consistent(User::key(&first.id)).await.map_err(failed(p))?.map(|u| u.order_count),
    );
    check(p, counts == (Some(3), Some(first.order_count + 2)), || format!("order counts {counts:?}"))?;
    let newest = table.query(Order::gsi2(&first.id)).descending().max_items(2).send().await.map_err(failed(p))?;
    check(p, newest.items == vec![placed[4].clone(), placed[3].clone()], || format!("newest {:?}", newest.items))?;

    // The stream handler over every record written since the stream was turned on.
    let p = "stream handler: new orders decoded by entity type and confirmed";
    let (records, processed) = timed!(reports, p, {
        let records = read_stream(streams, &arn).await.map_err(failed(p))?;
        let processed = handle_records(table, &records).await.map_err(failed(p))?;
        (records.len(), (records, processed))
    });
    let placed_ids: Vec<OrderId> = placed.iter().map(|o| o.id.clone()).collect();
    let revenue: u64 = placed.iter().map(|o| o.total_cents).sum();
    let mut confirmed = processed.confirmed.clone();
    confirmed.sort();
    check(p, confirmed == placed_ids && processed.already_confirmed.is_empty(), || format!("{processed:?}"))?;
    check(p, processed.revenue_cents == revenue, || {
        format!("revenue {}, expected {revenue}", processed.revenue_cents)
    })?;
    // The other records: the newcomer's INSERT and the five counter MODIFYs.
    check(p, processed.ignored == 6 && records.len() == 11, || {
        format!("{} records, {} ignored", records.len(), processed.ignored)
    })?;
    for order in &placed {
        let stored = table.get_consistent(Order::key(&order.id)).await.map_err(failed(p))?;
        check(p, stored.as_ref().map(|o| o.status) == Some(OrderStatus::Confirmed), || format!("{stored:?}"))?;
    }
    // The same records delivered again confirm nothing twice.
    let again = handle_records(table, &records).await.map_err(failed(p))?;
    let mut already = again.already_confirmed.clone();
    already.sort();
    check(p, again.confirmed.is_empty() && already == placed_ids && again.revenue_cents == 0, || format!("{again:?}"))?;

    Ok(reports)
}
