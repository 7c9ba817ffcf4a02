//! Exactly once for `TransactWriteItems`: the `ClientRequestToken` every request carries, the
//! attempts of one request (sent again, with the same token, when an answer is lost), the
//! [`Pending`] of a request whose outcome stayed unknown and its check,
//! [`Table::resolve`](crate::Table::resolve). The rules are in the [`transact`](crate::transact)
//! module's documentation.

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::transact_write_items::builders::TransactWriteItemsInputBuilder;
use aws_sdk_dynamodb::operation::transact_write_items::{TransactWriteItemsError, TransactWriteItemsOutput};

use crate::error::Error;
use crate::table::{Call, Next, Retrying, Table};
use crate::write_token::{Pending, PendingWrite, Resolved, WriteToken};

/// How long after the first attempt of a `TransactWriteItems` [`Table::resolve`] still sends it
/// again with its token: 9 minutes. DynamoDB keeps a token for 10 minutes after the first
/// request that used it completed, and a resend within them is answered as the first success
/// without being applied again; the minute left covers the time the resend takes.
///
/// ```
/// assert_eq!(dynamo_entity::transact::TOKEN_WINDOW.as_secs(), 540);
/// ```
pub const TOKEN_WINDOW: Duration = Duration::from_secs(9 * 60);

/// The `ClientRequestToken` of one `TransactWriteItems` request, and when its first attempt was
/// sent.
#[derive(Debug, Clone)]
pub(crate) struct RequestToken {
    pub(crate) text: String,
    pub(crate) first_sent: Instant,
}

impl RequestToken {
    /// A token made by the library: the 32 hexadecimal digits of a new [`WriteToken`] (the
    /// clock in milliseconds, then 8 random bytes), first sent now.
    pub(crate) fn new() -> RequestToken {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut text = String::with_capacity(32);
        for b in WriteToken::new().bytes() {
            text.push(char::from(HEX[usize::from(b >> 4)]));
            text.push(char::from(HEX[usize::from(b & 0xf)]));
        }
        RequestToken { text, first_sent: Instant::now() }
    }

    /// The caller's token ([`TransactWrite::client_request_token`](crate::transact::TransactWrite::client_request_token)),
    /// first sent now.
    pub(crate) fn given(text: &str) -> RequestToken {
        RequestToken { text: text.to_owned(), first_sent: Instant::now() }
    }
}

/// How the attempts of one `TransactWriteItems` request ended.
#[derive(Debug)]
pub(crate) enum Sent {
    /// Applied: by the last attempt, or by an earlier one whose answer was lost (DynamoDB
    /// answered the resend as the first success).
    Applied(TransactWriteItemsOutput),
    /// Canceled (`TransactionCanceledException`): nothing of it was applied, by any attempt.
    Canceled(SdkError<TransactWriteItemsError, HttpResponse>),
    /// Refused before any attempt lost its answer (a validation error, throttled on every
    /// attempt, ...): not applied.
    Refused(SdkError<TransactWriteItemsError, HttpResponse>),
    /// An attempt lost its answer and no later one told: it may have been applied.
    Unknown(SdkError<TransactWriteItemsError, HttpResponse>),
}

/// What one attempt's error says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attempted {
    /// `TransactionCanceledException`: not applied.
    Canceled,
    /// Throttled: not applied, send it again.
    Throttled,
    /// No answer, a server error (HTTP 5xx), or `TransactionInProgressException` (an earlier
    /// attempt with the token is still being applied): it may be applied.
    Lost,
    /// Any other answer.
    Answered,
}

/// The error codes of a request DynamoDB refused for throughput: not applied.
const THROTTLED: [&str; 4] = [
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "ReplicatedWriteConflictException",
];

fn attempted(error: &SdkError<TransactWriteItemsError, HttpResponse>) -> Attempted {
    match error {
        SdkError::ServiceError(e) => {
            let code = e.err().code();
            if matches!(e.err(), TransactWriteItemsError::TransactionCanceledException(_)) {
                Attempted::Canceled
            } else if code.is_some_and(|c| THROTTLED.contains(&c)) {
                Attempted::Throttled
            } else if code == Some("TransactionInProgressException") || e.raw().status().is_server_error() {
                Attempted::Lost
            } else {
                Attempted::Answered
            }
        }
        SdkError::ConstructionFailure(_) => Attempted::Answered,
        // A timeout, a connection that failed or an answer that could not be read: the request
        // may have reached DynamoDB.
        _ => Attempted::Lost,
    }
}

/// Sends `request` (which carries its token) through the handle's client without the SDK's
/// retries, in the one retry loop: as many attempts as the SDK client's retry configuration
/// allows (3 by default), each one the same request. Every request has `call`'s span: the
/// attempts of one request are one attempt of the operation.
///
/// A lost answer is resent after the policy's backoff, not at once as a single-item write's is:
/// the token makes the resend's answer certain whatever other writes reach the items meanwhile,
/// and an attempt that meets its own earlier one still in progress
/// (`TransactionInProgressException`) must wait for it.
pub(crate) async fn send_request(table: &Table, call: Call, request: &TransactWriteItemsInputBuilder) -> Sent {
    let client = table.write_client();
    let mut lost = false;
    let run = Retrying::new(call, table.writes().policy).run(&mut lost, |lost, _attempt| {
        let request = request.clone();
        let sent = table.execute(call, async move { request.send_with(client).await });
        Box::pin(async move {
            let error = match sent.await {
                Ok(out) => return Ok(Next::Done(Sent::Applied(out))),
                Err(error) => error,
            };
            Ok::<_, std::convert::Infallible>(match attempted(&error) {
                Attempted::Canceled => Next::Done(Sent::Canceled(error)),
                Attempted::Throttled => Next::Retry(error),
                Attempted::Lost => {
                    *lost = true;
                    Next::Retry(error)
                }
                // After a lost answer only a success or a cancellation tells what happened.
                Attempted::Answered if *lost => Next::Done(Sent::Unknown(error)),
                Attempted::Answered => Next::Done(Sent::Refused(error)),
            })
        })
    });
    match run.await {
        Ok(Ok(sent)) => sent,
        Ok(Err(error)) if lost => Sent::Unknown(error),
        Ok(Err(error)) => Sent::Refused(error),
        Err(never) => match never {},
    }
}

/// [`Error::OutcomeUnknown`] of `request`, sent with `token` by a handle of `table`, about
/// `entity` `key` (its first action's), from the error of its last attempt.
pub(crate) fn outcome_unknown(
    table: &Table,
    entity: &'static str,
    key: String,
    request: TransactWriteItemsInputBuilder,
    token: &RequestToken,
    error: SdkError<TransactWriteItemsError, HttpResponse>,
) -> Error {
    let write = PendingWrite::Transaction {
        request: Box::new(request),
        token: token.text.clone(),
        first_sent: token.first_sent,
    };
    let pending =
        Pending { table: table.name().to_owned(), operation: "TransactWriteItems", entity, key_text: key, write };
    unknown_again(&pending, error)
}

/// [`Error::OutcomeUnknown`] of `pending`, after an attempt that lost its answer with `error`.
fn unknown_again(pending: &Pending, error: SdkError<TransactWriteItemsError, HttpResponse>) -> Error {
    Error::OutcomeUnknown {
        operation: pending.operation,
        entity: pending.entity,
        key: pending.key_text.clone(),
        pending: Box::new(pending.clone()),
        source: Box::new(aws_sdk_dynamodb::Error::from(error)),
    }
}

/// [`Table::resolve`] of a `TransactWriteItems`: within [`TOKEN_WINDOW`] of its first attempt,
/// the same request with the same token; after it, [`Resolved::CannotTell`].
pub(crate) async fn resolve(
    table: &Table,
    pending: &Pending,
    request: &TransactWriteItemsInputBuilder,
    first_sent: Instant,
) -> Result<Resolved, Error> {
    if first_sent.elapsed() >= TOKEN_WINDOW {
        return Ok(Resolved::CannotTell);
    }
    match send_request(table, Call::new("TransactWriteItems", pending.entity), request).await {
        Sent::Applied(_) => Ok(Resolved::Applied),
        Sent::Canceled(_) => Ok(Resolved::NotApplied),
        Sent::Refused(error) => Err(Error::sdk("TransactWriteItems", error)),
        Sent::Unknown(error) => Err(unknown_again(pending, error)),
    }
}

// The one door of resolution, here rather than in `table`: it dispatches to the item read
// (`table::resend`) or to the transaction's resend above, and `table` does not import `transact`.
impl<D> Table<D> {
    /// Whether a write whose outcome was unknown ([`Error::OutcomeUnknown`]) was applied.
    ///
    /// For a single-item write, it first **fences** the item: an `UpdateItem` of the write
    /// history alone, with a token newer than the write's, on the condition that the item
    /// exists. A copy of the write still held by the network is refused once the fence is in
    /// (see [`write_token`](crate::write_token)), so `NotApplied` stays true. The fence returns
    /// the item as it was (`ALL_OLD`), and its history is judged. It costs a write of the item
    /// (1 write unit per 1 KB) and adds the fence to the history. On a handle without write
    /// tokens, it reads the item instead (`GetItem`, strongly consistent, key and history only).
    ///
    /// A `TransactWriteItems` is sent again instead, with its token (a resend of an applied one
    /// costs 2 read units per 4 KB of each item, as DynamoDB charges a token's replay).
    ///
    /// | the write | the item | the answer |
    /// |---|---|---|
    /// | put, create, replace, update | its history holds the write's token | [`Resolved::Applied`] |
    /// | | a history reaching back to before the write, without it (or no history: another client's item) | [`Resolved::NotApplied`] |
    /// | | a history too recent to tell (four writes or a put within [`RESEND_MARGIN`](crate::write_token::RESEND_MARGIN) of the write), no item (it may have been deleted since), or a handle without write tokens | [`Resolved::CannotTell`] |
    /// | delete, `delete_if_version` | no item | [`Resolved::Applied`]: the item is gone (by this write or another) |
    /// | | an item whose history reaches back to before the write | [`Resolved::NotApplied`] |
    /// | | an item written since | [`Resolved::CannotTell`] |
    /// | a transaction, a write of an entity with unique fields (`TransactWriteItems`) | within [`TOKEN_WINDOW`] (9 minutes) of its first attempt: sent again with its `ClientRequestToken`, and applied | [`Resolved::Applied`]: once, by an earlier attempt or by this one (resolve completes it) |
    /// | | sent again, canceled (a condition does not hold now) | [`Resolved::NotApplied`] |
    /// | | after the window | [`Resolved::CannotTell`] |
    ///
    /// ```no_run
    /// # async fn f(table: dynamo_entity::Table, e: dynamo_entity::Error) -> Result<(), dynamo_entity::Error> {
    /// use dynamo_entity::write_token::Resolved;
    /// if let Some(pending) = e.pending() {
    ///     match table.resolve(pending).await? {
    ///         Resolved::Applied => { /* done: do not send it again */ }
    ///         Resolved::NotApplied => { /* safe to send again */ }
    ///         _ => { /* compare the item with what the write would have done */ }
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] when `pending` was sent to another table than this handle's (nothing
    /// is read); [`Error::Contended`] when newer writes came first each time the fence was
    /// sent; [`Error::Sdk`] when the fence or the read fails (the fence is sent without the SDK's
    /// retries) (for a `TransactWriteItems`, when its resend is refused,
    /// such as throttled on every attempt); [`Error::OutcomeUnknown`], with the same pending
    /// write, when every attempt of a `TransactWriteItems`' resend lost its answer. Either way,
    /// resolve again.
    pub async fn resolve(&self, pending: &Pending) -> Result<Resolved, Error> {
        if pending.table != self.name() {
            return Err(Error::Invalid {
                reason: format!(
                    "the {} of {} {} was sent to table {}: resolve it with a handle of that table, not of {}",
                    pending.operation,
                    pending.entity,
                    pending.key_text,
                    pending.table,
                    self.name()
                ),
            });
        }
        match &pending.write {
            PendingWrite::Transaction { request, first_sent, .. } => {
                resolve(&self.untyped(), pending, request, *first_sent).await
            }
            PendingWrite::Item { .. } => self.untyped().resolve_item(pending).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_token_is_32_hex_digits_of_a_write_token() {
        let token = RequestToken::new();
        assert_eq!(token.text.len(), 32);
        assert!(token.text.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        let millis = u64::from_str_radix(&token.text[..16], 16).unwrap();
        assert!(millis > 1_700_000_000_000, "{millis}");
        assert_ne!(RequestToken::new().text, token.text);
        assert!(token.text.len() <= crate::transact::MAX_TOKEN_CHARS);
    }

    fn pending(first_sent: Instant) -> (Pending, TransactWriteItemsInputBuilder) {
        use aws_sdk_dynamodb::types::{AttributeValue, ConditionCheck, TransactWriteItem};
        let check = ConditionCheck::builder()
            .table_name("t")
            .key("PK", AttributeValue::S("N#1".into()))
            .key("SK", AttributeValue::S("N".into()))
            .condition_expression("attribute_exists(PK)")
            .build()
            .unwrap();
        let request = TransactWriteItemsInputBuilder::default()
            .transact_items(TransactWriteItem::builder().condition_check(check).build())
            .client_request_token("t");
        let write = PendingWrite::Transaction { request: Box::new(request.clone()), token: "t".into(), first_sent };
        (
            Pending {
                table: "t".into(),
                operation: "TransactWriteItems",
                entity: "Note",
                key_text: "PK=N#1 SK=N".into(),
                write,
            },
            request,
        )
    }

    #[tokio::test]
    async fn after_the_window_resolve_cannot_tell_and_sends_nothing() {
        // A client without credentials: had resolve sent the request, it would have failed.
        let table = Table::new(crate::table::offline_client(), "t");
        let Some(old) = Instant::now().checked_sub(TOKEN_WINDOW) else { return };
        let (p, request) = pending(old);
        assert_eq!(p.request_token(), Some("t"));
        assert_eq!(p.token(), None);
        assert_eq!(resolve(&table, &p, &request, old).await.unwrap(), Resolved::CannotTell);
        // Within the window it sends: here every attempt fails to dispatch (no credentials), which
        // the library cannot tell from a lost answer; the error carries the same pending write.
        let now = Instant::now();
        let err = resolve(&table, &p, &request, now).await.unwrap_err();
        let again = err.pending().unwrap_or_else(|| panic!("{err:?}"));
        assert_eq!((again.operation(), again.entity(), again.key()), ("TransactWriteItems", "Note", "PK=N#1 SK=N"));
        assert_eq!(again.request_token(), Some("t"));
    }
}
