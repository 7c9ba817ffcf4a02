//! Exactly once: how a single-item write whose answer was lost is sent again without being
//! applied twice, and how the library says so when it cannot know.
//!
//! DynamoDB may apply a write and lose its answer (an HTTP 500 after the write, a timeout, a
//! reset connection). Sending the same request again applies it again: an `add` counts twice,
//! a list gets the entry twice, a condition such as `balance >= 30` can hold twice. The library
//! therefore sends its single-item writes itself, one attempt at a time (the SDK's own retries
//! are off for them), and marks every write with a **write token**.
//!
//! # The write history of an item
//!
//! | attribute | holds |
//! |---|---|
//! | `_w1` | the token of the item's latest write through the library (16 bytes, binary) |
//! | `_w2`, `_w3`, `_w4` | the tokens of the three writes before it |
//!
//! A token is 8 bytes of the writer's clock (milliseconds since 1970, big-endian) and 8 random
//! bytes, made once per call (so every attempt of the call is sent after its time).
//!
//! | write | the history it leaves |
//! |---|---|
//! | update, upsert, increment | shifted: its token in `_w1`, `_w1` in `_w2`, and so on; an entry the item lacked becomes 16 zero bytes ("no write through the library before") |
//! | create | started: its token in `_w1`, zeros in `_w2` to `_w4` (a create replaced nothing) |
//! | put, replace | started again: its token in `_w1`, and its time (random part zero) in `_w2` to `_w4`: the history reaches back to this put and no further, since a put replaces the whole item |
//!
//! The history adds 76 bytes to every item the library writes (DynamoDB counts each name and
//! value): capacity changes only when that takes an item across a 1 KB boundary (writes) or a
//! 4 KB one (reads).
//!
//! # What a resend does
//!
//! | the attempt before | the library |
//! |---|---|
//! | throttled (`ProvisionedThroughputExceededException`, `ThrottlingException`, `RequestLimitExceeded`), or a `ReplicatedWriteConflictException` | sends the same request again: it was not applied |
//! | lost its answer (HTTP 5xx, a timeout, a connection failure) | sends it again with one more condition: the token is not in the history, and the history reaches back to before the first attempt (its oldest entry is over [`RESEND_MARGIN`] older than the first attempt) |
//!
//! When that condition fails, DynamoDB returns the item (`ReturnValuesOnConditionCheckFailure =
//! ALL_OLD`) and the library reads its history:
//!
//! | the history | the answer |
//! |---|---|
//! | holds the token | the first attempt was applied: `Ok`, with the item it left when its token is the latest (an update's new item); with [`Returned::Lost`](crate::error::Returned::Lost) where the returned item is not known |
//! | reaches back, without the token | it was not applied: the write's own error (version conflict, condition failed, ...) |
//! | is too recent to tell: its oldest entry is less than [`RESEND_MARGIN`] older than the first attempt (four writes, or a put or replace, within that margin before the first attempt or after it) | [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown) |
//! | there is no item (an update or replace, which needs one; a versioned put) | [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown): the first attempt may have been applied to an item deleted since |
//!
//! When every attempt lost its answer, the write is [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown) too. Its
//! source is the error of the first attempt that lost its answer. Its [`Pending`] goes to
//! [`Table::resolve`](crate::Table::resolve) on a handle of the same table, which reads the
//! item (strongly consistent) and answers [`Resolved`].
//!
//! # Attempts
//!
//! A write gets as many attempts as the handle's SDK client allows (its retry configuration's
//! `max_attempts`: 3 by default in the SDK's standard mode); the library sends them itself,
//! with the SDK's own retries off for these requests. A throttled attempt waits the library's
//! backoff ([`retry`](crate::retry)); an attempt that lost its answer is resent at once.
//!
//! Transactions and the writes of entities with unique fields (`TransactWriteItems`) add
//! nothing to items: DynamoDB's `ClientRequestToken` makes their resends safe (see
//! [`transact`](crate::transact)).
//!
//! A delete leaves no item to hold its token: its resend is conditional on the history only. An
//! item still there whose oldest real entry (the one before the zeros: its creation, for an
//! item created since) is older than the first attempt by the margin was not deleted by it; an
//! item created or put since may stand where the delete removed one, and the library cannot
//! tell. An absent item answers [`Returned::Lost`](crate::error::Returned::Lost).
//!
//! # Limits
//!
//! | case | what happens |
//! |---|---|
//! | a busy item: four writes, or a put or replace, within [`RESEND_MARGIN`] (1 s) before the first attempt or after it (for a delete, also a create) | the library cannot tell, and says so ([`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown); [`Resolved::CannotTell`]), even for an attempt that was not applied. An item written four times a second or more cannot recover a lost answer this way |
//! | clocks and delays | the writers' clocks must agree within [`RESEND_MARGIN`], and a write must be applied within it of its call's start, when its token is made. A write throttled for longer (its attempts wait out their backoff) is applied later than its token says; four such late writes to one item could push a concurrent write's token out of the history unseen |
//! | another writer deletes the item between the first attempt and the resend | DynamoDB keeps nothing of a deleted item. A resend of a write that may create the item (put, create, upsert, increment) finds none and creates it, as if it came after the delete, even when the first attempt was applied before it. A write that needs the item says [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown); a delete answers [`Returned::Lost`](crate::error::Returned::Lost) |
//! | a writer that is not the library replaces the item (a `PutItem` of its own) | its item has no history: a resend finds none and is judged as not applied |
//! | [`Table::without_write_tokens`](crate::Table::without_write_tokens) | adds nothing to items: a write whose answer is lost is not sent again ([`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown)) |

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::schema::Item;

/// The attributes of an item's write history, newest first.
pub const HISTORY: [&str; 4] = ["_w1", "_w2", "_w3", "_w4"];

/// The bytes a history adds to an item by DynamoDB's rules: four names of 3 bytes and four
/// 16-byte tokens.
pub(crate) const HISTORY_BYTES: usize = 4 * (3 + 16);

/// Their placeholders in the library's expressions.
const HISTORY_NAMES: [&str; 4] = ["#w1", "#w2", "#w3", "#w4"];

/// How much older than a write's first attempt the oldest entry of an item's history must be for
/// a resend to conclude, from a history without its token, that the first attempt was not
/// applied: it covers the writers' clock differences and the time a request takes to be applied.
pub const RESEND_MARGIN: Duration = Duration::from_secs(1);

/// The token of one write: 8 bytes of the writer's clock (milliseconds since 1970,
/// big-endian), then 8 random bytes. Binary values compare byte by byte, so tokens compare by
/// time in DynamoDB's conditions.
///
/// ```
/// use dynamo_entity::write_token::WriteToken;
/// let token = WriteToken::new();
/// assert_eq!(token.bytes().len(), 16);
/// assert!(token.millis() > 1_700_000_000_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WriteToken([u8; 16]);

impl WriteToken {
    /// A new token: now, and 8 random bytes.
    pub fn new() -> WriteToken {
        WriteToken::at(now_millis(), fastrand::u64(..))
    }

    /// The token of `millis` with `random`.
    pub(crate) fn at(millis: u64, random: u64) -> WriteToken {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&millis.to_be_bytes());
        bytes[8..].copy_from_slice(&random.to_be_bytes());
        WriteToken(bytes)
    }

    /// The lowest token of a write sent [`RESEND_MARGIN`] before `self`: a history whose
    /// oldest entry is below it reaches back to before `self`'s write.
    pub(crate) fn floor(&self) -> WriteToken {
        WriteToken::at(self.millis().saturating_sub(RESEND_MARGIN.as_millis() as u64), 0)
    }

    /// The 16 bytes, as stored.
    pub fn bytes(&self) -> [u8; 16] {
        self.0
    }

    /// The writer's clock when the token was made, in milliseconds since 1970.
    pub fn millis(&self) -> u64 {
        let mut at = [0u8; 8];
        at.copy_from_slice(&self.0[..8]);
        u64::from_be_bytes(at)
    }

    fn value(&self) -> AttributeValue {
        AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(self.0.to_vec()))
    }

    /// The token a stored history entry holds; `None` for a value that is not one.
    fn read(value: &AttributeValue) -> Option<WriteToken> {
        match value {
            AttributeValue::B(b) => <[u8; 16]>::try_from(b.as_ref()).ok().map(WriteToken),
            _ => None,
        }
    }
}

impl Default for WriteToken {
    fn default() -> Self {
        WriteToken::new()
    }
}

fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Starts the history of `item`, the whole item a put writes, with `token` in `_w1`. A create
/// (`created`: written only where there was no item) replaced nothing: `_w2` to `_w4` are zero,
/// as an update leaves them on an item without a history. A put or replace may have replaced an
/// item, and what its history held goes with it: `_w2` to `_w4` hold the token's time (random
/// part zero), so the history reaches back to the put and no further.
pub(crate) fn put_history(item: &mut Item, token: &WriteToken, created: bool) {
    item.insert(HISTORY[0].to_owned(), token.value());
    let start = if created { WriteToken([0; 16]) } else { WriteToken::at(token.millis(), 0) }.value();
    for attribute in &HISTORY[1..] {
        item.insert((*attribute).to_owned(), start.clone());
    }
}

/// The `SET` actions that shift an item's history and make `token` its latest entry, with their
/// names and values (`:wt` the token, `:wz` the empty entry of an item without a history).
pub(crate) fn shift_history(
    names: &mut std::collections::HashMap<String, String>,
    values: &mut std::collections::HashMap<String, AttributeValue>,
    token: &WriteToken,
) -> &'static str {
    add_names(names);
    values.insert(":wt".to_owned(), token.value());
    values.insert(":wz".to_owned(), WriteToken([0; 16]).value());
    "#w1 = :wt, #w2 = if_not_exists(#w1, :wz), #w3 = if_not_exists(#w2, :wz), #w4 = if_not_exists(#w3, :wz)"
}

/// Adds the history's actions to an update expression (`SET a = :v REMOVE b`, or one without a
/// `SET`).
pub(crate) fn with_shift(update: &str, shift: &str) -> String {
    match update.strip_prefix("SET ") {
        Some(rest) => format!("SET {shift}, {rest}"),
        None if update.is_empty() => format!("SET {shift}"),
        None => format!("SET {shift} {update}"),
    }
}

fn add_names(names: &mut std::collections::HashMap<String, String>) {
    for (placeholder, attribute) in HISTORY_NAMES.iter().zip(HISTORY) {
        names.insert((*placeholder).to_owned(), attribute.to_owned());
    }
}

/// The condition a resend adds to its own, ANDed, with its names and values: the token is not
/// in the history, and the history reaches back to before the first attempt. A delete
/// (`with_token: false`) checks the history only.
pub(crate) fn resend_condition(
    condition: Option<&str>,
    names: &mut std::collections::HashMap<String, String>,
    values: &mut std::collections::HashMap<String, AttributeValue>,
    token: &WriteToken,
    with_token: bool,
) -> String {
    add_names(names);
    values.insert(":wf".to_owned(), token.floor().value());
    let own = if with_token {
        values.insert(":wt".to_owned(), token.value());
        "NOT (:wt IN (#w1, #w2, #w3, #w4)) AND (attribute_not_exists(#w4) OR #w4 < :wf)".to_owned()
    } else {
        // A delete: the item's oldest real entry (the last before the zeros, which an item
        // created since would start with) is older than the floor, or it has no history.
        values.insert(":wz".to_owned(), WriteToken([0; 16]).value());
        "(attribute_not_exists(#w1) OR (#w4 > :wz AND #w4 < :wf) OR (#w4 = :wz AND #w3 > :wz AND #w3 < :wf) \
         OR (#w3 = :wz AND #w2 > :wz AND #w2 < :wf) OR (#w2 = :wz AND #w1 < :wf))"
            .to_owned()
    };
    match condition {
        Some(c) if !c.is_empty() => format!("({c}) AND {own}"),
        _ => own,
    }
}

/// What an item's history says of the write with `token`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen {
    /// The write was applied; `latest` when no write came after it.
    Applied { latest: bool },
    /// The history reaches back to before the write and does not hold it: not applied.
    NotApplied,
    /// The history is too recent (a busy item, or a put after the write), or there is no item
    /// (the write may have been applied to one deleted since): it cannot tell.
    CannotTell,
}

/// What the history of `item` says of a delete with `token` whose resend found it: whether
/// it was written since the delete's first attempt (`CannotTell`: it may have been deleted by
/// it and created again) or its oldest real entry (the last before the zeros an item created
/// since starts with) is older than the floor (`NotApplied`). An item without a history is
/// judged not deleted by it.
pub(crate) fn seen_by_delete(item: &Item, token: &WriteToken) -> Seen {
    let entries: Vec<Option<WriteToken>> = HISTORY.iter().map(|a| item.get(*a).and_then(WriteToken::read)).collect();
    let zero = WriteToken([0; 16]);
    let oldest = entries.iter().flatten().take_while(|e| **e != zero).last();
    match oldest {
        None => Seen::NotApplied,
        Some(oldest) if *oldest < token.floor() => Seen::NotApplied,
        Some(_) => Seen::CannotTell,
    }
}

/// What the history of `item` (`None`: no item) says of the write with `token`.
pub(crate) fn seen(item: Option<&Item>, token: &WriteToken) -> Seen {
    let Some(item) = item else { return Seen::CannotTell };
    let entries: Vec<Option<WriteToken>> = HISTORY.iter().map(|a| item.get(*a).and_then(WriteToken::read)).collect();
    if let Some(at) = entries.iter().position(|e| e.as_ref() == Some(token)) {
        return Seen::Applied { latest: at == 0 };
    }
    match entries[3] {
        None => Seen::NotApplied,
        Some(oldest) if oldest < token.floor() => Seen::NotApplied,
        Some(_) => Seen::CannotTell,
    }
}

/// What the library knows of a write whose outcome it could not learn, to find it later with
/// [`Table::resolve`](crate::Table::resolve), on a handle of the same table. Carried by
/// [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown).
///
/// ```
/// use dynamo_entity::Error;
/// fn pending(e: &Error) -> Option<String> {
///     e.pending().map(|p| format!("{} of {} {}", p.operation(), p.entity(), p.key()))
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Pending {
    /// The table of the handle that sent it.
    pub(crate) table: String,
    pub(crate) operation: &'static str,
    pub(crate) entity: &'static str,
    pub(crate) key_text: String,
    pub(crate) write: PendingWrite,
}

/// The write a [`Pending`] stands for.
#[derive(Debug, Clone)]
pub(crate) enum PendingWrite {
    /// A single-item write: the item's primary key attributes, the write's token (`None` on a
    /// handle without write tokens) and whether it was a delete.
    Item { key: Item, token: WriteToken, tokens: bool, delete: bool },
    /// A `TransactWriteItems` (a transaction, or a write of an entity with unique fields): the
    /// request as it was sent, with its `ClientRequestToken` (`token`), and when its first
    /// attempt was sent (DynamoDB's idempotency window counts from then; see
    /// [`transact`](crate::transact)).
    Transaction {
        request: Box<aws_sdk_dynamodb::operation::transact_write_items::builders::TransactWriteItemsInputBuilder>,
        token: String,
        first_sent: std::time::Instant,
    },
}

impl Pending {
    /// The table written (the name of the handle that sent it).
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The DynamoDB operation, such as `UpdateItem`.
    pub fn operation(&self) -> &'static str {
        self.operation
    }

    /// The entity type written.
    pub fn entity(&self) -> &'static str {
        self.entity
    }

    /// The item's primary key, as `PK=… SK=…`.
    pub fn key(&self) -> &str {
        &self.key_text
    }

    /// The write token of a single-item write (see [`WriteToken`]); `None` for a
    /// `TransactWriteItems`, which [`request_token`](Self::request_token) identifies.
    pub fn token(&self) -> Option<WriteToken> {
        match &self.write {
            PendingWrite::Item { token, .. } => Some(*token),
            PendingWrite::Transaction { .. } => None,
        }
    }

    /// The `ClientRequestToken` of a `TransactWriteItems` (yours, from
    /// [`TransactWrite::client_request_token`](crate::transact::TransactWrite::client_request_token),
    /// or the one the library made for the call); `None` for a single-item write.
    pub fn request_token(&self) -> Option<&str> {
        match &self.write {
            PendingWrite::Item { .. } => None,
            PendingWrite::Transaction { token, .. } => Some(token),
        }
    }
}

/// What [`Table::resolve`](crate::Table::resolve) found of a write whose outcome was unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Resolved {
    /// The write was applied, once. Do not send it again. For a `TransactWriteItems`, either an
    /// earlier attempt applied it or [`Table::resolve`](crate::Table::resolve) did, by sending
    /// it again with its token: it is complete either way.
    Applied,
    /// The write was not applied. Sending it again is safe. For a `TransactWriteItems`: sent
    /// again with its token, it was canceled (a condition does not hold now), and nothing of it
    /// was applied.
    NotApplied,
    /// The table cannot tell: the item's history is too recent (four writes, or a put, within
    /// [`RESEND_MARGIN`] of the write: see the [module's limits](self#limits)), there is no item
    /// (a write that needs one may have been applied to an item deleted since), or the handle
    /// writes no history ([`Table::without_write_tokens`](crate::Table::without_write_tokens)).
    /// Compare the item with what the write would have done. For a `TransactWriteItems`: its token's idempotency
    /// window is over (see [`transact`](crate::transact)).
    CannotTell,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_a_put_started_reaches_back_to_the_put_and_no_further() {
        let ours = WriteToken::at(10_000, 7);
        let put = |ms: u64| {
            let mut item = Item::new();
            put_history(&mut item, &WriteToken::at(ms, 1), false);
            item
        };
        // A put 10 ms before the write: within the margin, it may have come after the write
        // and replaced what it did. A put 1.5 s before: the history covers the write.
        assert_eq!(seen(Some(&put(9_990)), &ours), Seen::CannotTell);
        assert_eq!(seen(Some(&put(8_500)), &ours), Seen::NotApplied);
        // Its entries: the token, then its time three times.
        let stored = put(8_500);
        let entries: Vec<Option<WriteToken>> =
            HISTORY.iter().map(|a| stored.get(*a).and_then(WriteToken::read)).collect();
        let start = Some(WriteToken::at(8_500, 0));
        assert_eq!(entries, vec![Some(WriteToken::at(8_500, 1)), start, start, start]);
        // Three updates after an old put still reach back to it; the newest three are recent.
        let updated = item(&[
            WriteToken::at(10_003, 1),
            WriteToken::at(10_002, 1),
            WriteToken::at(10_001, 1),
            WriteToken::at(8_500, 1),
        ]);
        assert_eq!(seen(Some(&updated), &ours), Seen::NotApplied);
    }

    fn item(entries: &[WriteToken]) -> Item {
        let mut item = Item::new();
        for (attribute, token) in HISTORY.iter().zip(entries) {
            item.insert((*attribute).to_owned(), token.value());
        }
        item
    }

    #[test]
    fn a_created_history_reaches_back_to_the_start_but_not_for_a_delete() {
        let ours = WriteToken::at(10_000, 7);
        let mut created = Item::new();
        put_history(&mut created, &WriteToken::at(9_990, 1), true);
        let entries: Vec<Option<WriteToken>> =
            HISTORY.iter().map(|a| created.get(*a).and_then(WriteToken::read)).collect();
        let zero = Some(WriteToken([0; 16]));
        assert_eq!(entries, vec![Some(WriteToken::at(9_990, 1)), zero, zero, zero]);
        // A create replaced nothing: a write judged against it was not applied before it.
        assert_eq!(seen(Some(&created), &ours), Seen::NotApplied);
        // A delete may have removed the item this one was created in the place of.
        assert_eq!(seen_by_delete(&created, &ours), Seen::CannotTell);
        let mut old = Item::new();
        put_history(&mut old, &WriteToken::at(8_000, 1), true);
        assert_eq!(seen_by_delete(&old, &ours), Seen::NotApplied);
        // Updated twice since its creation at 8,000: still created long before.
        let updated = item(&[WriteToken::at(10_002, 1), WriteToken::at(9_500, 1), WriteToken::at(8_000, 1)]);
        let mut updated = updated;
        updated.insert(HISTORY[3].to_owned(), WriteToken([0; 16]).value());
        assert_eq!(seen_by_delete(&updated, &ours), Seen::NotApplied);
        // Another client's item, without a history.
        assert_eq!(seen_by_delete(&Item::new(), &ours), Seen::NotApplied);
    }

    #[test]
    fn the_history_says_applied_not_applied_or_cannot_tell() {
        let ours = WriteToken::at(10_000, 7);
        let before = |ms: u64| WriteToken::at(ms, 1);
        // Ours is the latest, or a later write came after it.
        assert_eq!(seen(Some(&item(&[ours, before(9_000)])), &ours), Seen::Applied { latest: true });
        assert_eq!(seen(Some(&item(&[before(10_001), ours])), &ours), Seen::Applied { latest: false });
        // No item: it may have been deleted after the write was applied.
        assert_eq!(seen(None, &ours), Seen::CannotTell);
        // No history (another client's item), or a history reaching back past the margin.
        assert_eq!(seen(Some(&Item::new()), &ours), Seen::NotApplied);
        let old = [before(10_002), before(10_001), before(9_500), before(8_999)];
        assert_eq!(seen(Some(&item(&old)), &ours), Seen::NotApplied);
        // The oldest entry inside the margin: four writes since, maybe ours among those pushed out.
        let recent = [before(10_003), before(10_002), before(10_001), before(9_000)];
        assert_eq!(seen(Some(&item(&recent)), &ours), Seen::CannotTell);
    }

    #[test]
    fn tokens_compare_by_time_then_random_bytes() {
        assert!(WriteToken::at(1, u64::MAX) < WriteToken::at(2, 0));
        assert_eq!(WriteToken::at(5_000, 9).floor(), WriteToken::at(4_000, 0));
        assert_eq!(WriteToken::at(5, 9).floor(), WriteToken::at(0, 0));
        assert_eq!(WriteToken::at(0x0102, 3).bytes(), [0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 3]);
    }

    #[test]
    fn the_shift_goes_first_in_the_set_clause() {
        assert_eq!(with_shift("SET a = :v REMOVE b", "S"), "SET S, a = :v REMOVE b");
        assert_eq!(with_shift("REMOVE b", "S"), "SET S REMOVE b");
        assert_eq!(with_shift("ADD n :one", "S"), "SET S ADD n :one");
    }
}
