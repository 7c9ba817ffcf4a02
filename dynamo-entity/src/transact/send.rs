//! The sending of a transaction's write actions: the `TransactWriteItems` request, checked before
//! it is sent, with its `ClientRequestToken` (see [`resend`](crate::transact::resend)), and the
//! resending of a transaction cancelled by conflicts or throttling only.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::transact_write_items::builders::TransactWriteItemsInputBuilder;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, TransactWriteItem};

use crate::capacity::Capacity;
use crate::error::{CancellationReason, Error};
use crate::limits;
use crate::retry::RetryPolicy;
use crate::table::{Call, Next, Retrying, Table};
use crate::transact::action::Action;
use crate::transact::named::{cancellation, check_actions};
use crate::transact::resend::{RequestToken, Sent, outcome_unknown, send_request};
use crate::value::size::{item_size, value_size};

/// The `TransactWriteItems` request of `actions`, checked as [`send_once`] checks it.
pub(crate) fn write_request(actions: &[Action], token: Option<&str>) -> Result<TransactWriteItemsInputBuilder, Error> {
    check_actions(actions, "transaction")?;
    // The items a transaction writes, as far as they are known before sending: whole items of
    // puts, the keys and values of the other actions.
    let bytes = actions.iter().map(|a| action_size(&a.request)).sum();
    limits::check_transaction(actions.len(), bytes)
        .map_err(|e| e.request("TransactWriteItems", common_entity(actions), String::new()))?;
    Ok(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput::builder()
        .set_transact_items(Some(actions.iter().map(|a| a.request.clone()).collect()))
        .set_client_request_token(token.map(str::to_owned))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes))
}

/// The size of what one action sends of an item: the whole item of a put, the key and the
/// expression values of the others (by DynamoDB's item-size rules).
fn action_size(request: &TransactWriteItem) -> usize {
    let values = |v: Option<&HashMap<String, aws_sdk_dynamodb::types::AttributeValue>>| {
        v.map_or(0, |v| v.values().map(value_size).sum::<usize>())
    };
    if let Some(p) = request.put() {
        return item_size(p.item());
    }
    if let Some(u) = request.update() {
        return item_size(u.key()) + values(u.expression_attribute_values());
    }
    if let Some(d) = request.delete() {
        return item_size(d.key()) + values(d.expression_attribute_values());
    }
    request.condition_check().map_or(0, |c| item_size(c.key()) + values(c.expression_attribute_values()))
}

/// The entity type every action of `actions` writes (its guard actions included); empty when
/// they write several.
fn common_entity(actions: &[Action]) -> &'static str {
    match actions {
        [first, rest @ ..] if rest.iter().all(|a| a.entity == first.entity) => first.entity,
        _ => "",
    }
}

/// Sends `actions` as one `TransactWriteItems` with `token` (`call` names the request's span,
/// with its attempt number), and returns the capacity it consumed (also recorded on `table`'s
/// meter). An attempt that lost its answer is sent again with the same token
/// ([`send_request`]).
///
/// # Errors
/// [`Error::TransactionCanceled`] (nothing applied); [`Error::OutcomeUnknown`] when it may have
/// been applied (named by its first action's entity and key); [`Error::Sdk`] (or
/// [`Error::Throttled`]) for a request refused before any attempt lost its answer.
pub(crate) async fn send_once(
    table: &Table,
    actions: &[Action],
    token: &RequestToken,
    call: Call,
) -> Result<Capacity, Error> {
    let request = write_request(actions, Some(&token.text))?;
    match send_request(table, call, &request).await {
        Sent::Applied(out) => Ok(Capacity::from_consumed(out.consumed_capacity.as_deref().unwrap_or_default(), true)),
        Sent::Canceled(SdkError::ServiceError(e)) => match e.into_err() {
            TransactWriteItemsError::TransactionCanceledException(c) => {
                Err(cancellation(actions, c.cancellation_reasons()))
            }
            other => Err(Error::sdk("TransactWriteItems", other)),
        },
        Sent::Canceled(e) | Sent::Refused(e) => Err(Error::sdk("TransactWriteItems", e)),
        Sent::Unknown(e) => {
            let (entity, key) = actions.first().map_or(("", String::new()), |a| (a.entity, a.key.clone()));
            Err(outcome_unknown(table, entity, key, request, token, e))
        }
    }
}

/// Whether a cancellation was only due to conflicts or throttling, so that the same request may
/// succeed when sent again.
pub(crate) fn only_transient(reasons: &[CancellationReason]) -> bool {
    !reasons.is_empty() && reasons.iter().all(|r| r.code.is_transient())
}

/// Sends `actions` with `token`, resending up to `retries` times (with
/// [`RetryPolicy::CONFLICTS`]'s backoff) while the transaction is canceled by conflicts or
/// throttling only. The request does not change, and a canceled one was not applied: every
/// resend carries the same token.
pub(crate) async fn send(
    table: &Table,
    actions: &[Action],
    token: &RequestToken,
    retries: u32,
) -> Result<Capacity, Error> {
    let call = Call::new("TransactWriteItems", common_entity(actions));
    let policy = RetryPolicy::CONFLICTS.max_attempts(retries.saturating_add(1));
    Retrying::new(call, policy)
        .run(&mut (), |(), attempt| {
            Box::pin(async move {
                match send_once(table, actions, token, attempt.call()).await {
                    Err(Error::TransactionCanceled { reasons }) if only_transient(&reasons) => {
                        Ok(Next::Retry(Error::TransactionCanceled { reasons }))
                    }
                    other => other.map(Next::Done),
                }
            })
        })
        .await?
}
