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
//! bytes, made once per call (so every attempt of the call is sent after its time). Tokens
//! compare as DynamoDB compares binary values, byte by byte: by time first.
//!
//! **The history is in the order of the writes.** Every write the library sends requires the
//! item's latest token (`_w1`) to be older than its own, or absent. So the entries are in
//! order, newest first, and a request that reaches DynamoDB after a newer write of the item is
//! refused, however many writes came after it.
//!
//! | a write's token is not newer than the item's latest | the library |
//! |---|---|
//! | another writer's write landed while this one was on its way (its token made later), another writer's clock is ahead, or it wrote in the same millisecond | sends the write again with a token a millisecond after the item's latest: one more request (and one more write unit on DynamoDB, which charges a failed condition) |
//! | the handle (or a clone) wrote the item a moment ago | makes the token newer than that write's before it sends anything (the [answered writes](#how-far-a-history-reaches-back)) |
//! | newer writes came first 8 times in a row | stops: [`Error::Contended`](crate::Error::Contended), not applied, retryable |
//!
//! On a hot item this costs requests. 16 tasks each sending 200 writes to one item at once
//! took 6,065 requests for 3,200 writes, and 8 of them ended [`Error::Contended`](crate::Error::Contended)
//! (DynamoDB Local, 2026-12-06). Spread a hot item's writes (write sharding), or use a handle
//! without write tokens for it.
//!
//! | write | the history it leaves |
//! |---|---|
//! | update, upsert, increment | shifted: its token in `_w1`, `_w1` in `_w2`, and so on; an entry the item lacked becomes 16 zero bytes |
//! | put, create, replace | started again: its token in `_w1` alone (the write replaces the whole item, and its history with it) |
//!
//! The history adds 19 bytes to an item a put wrote, and 76 once updates followed (DynamoDB
//! counts each name and value): capacity changes only when that takes an item across a 1 KB
//! boundary (writes) or a 4 KB one (reads).
//!
//! **Indexes that project every attribute copy the history.** A GSI or LSI with projection
//! `ALL` holds `_w1` too. Every write changes `_w1`, so every write also rewrites the item's
//! copy in that index, even a put that changes nothing else the index holds. On DynamoDB Local
//! (2026-12-07), a Skill put again with the values it holds (the `e2e` benchmark's `put`
//! phase) returns consumed capacity for its indexes when the put carries a write token, and
//! none when it does not. The history does not touch an index with projection `KEYS_ONLY`,
//! or `INCLUDE` without `_w1`.
//!
//! **How far a history reaches back.** Its real entries come first, newest first; zeros and
//! absent entries after them say nothing about what came before. The history reaches back to
//! its oldest real entry and no further: the item may have been put, created, or deleted and
//! created again just before it. It also reaches back to before a write when it holds the token
//! of a write to the item that the same handle (or a clone of it) got an answer for before that
//! write's first attempt, followed by an older entry or none: that one was applied first. An item with no history at all (written
//! by another client, a transaction, a batch or a handle without write tokens) is judged as if
//! its history reached back (see the limits).
//!
//! # Each attempt's condition
//!
//! | attempt | the library adds to the write's own condition |
//! |---|---|
//! | the first | the item's latest token is older than the write's, or there is none: the token is not in the history, and a first attempt that reaches DynamoDB after a newer write (its own resend among them) is refused |
//! | after a throttled one (`ProvisionedThroughputExceededException`, `ThrottlingException`, `RequestLimitExceeded`, `ReplicatedWriteConflictException`) | the same: the throttled attempt was not applied |
//! | after one that lost its answer (HTTP 5xx, a timeout, a connection failure): a resend, sent at once | the same, and the history reaches back to before the first attempt (by over [`RESEND_MARGIN`], or to a write the handle got an answer for before it), or there is no item |
//!
//! When a resend's condition fails, DynamoDB returns the item (`ReturnValuesOnConditionCheckFailure =
//! ALL_OLD`) and the library reads its history:
//!
//! | the item | the answer |
//! |---|---|
//! | its history holds the token | the first attempt was applied: `Ok`, with the item it left when its token is the latest (an update's new item); with [`Returned::Lost`](crate::error::Returned::Lost) where the returned item is not known |
//! | its history reaches back, without the token | it was not applied, and never will be once the latest token is newer than the write's: the write is sent again with a newer token (as above); otherwise the write's own condition failed (version conflict, condition failed, ...) |
//! | its history is too recent to tell (four writes, or another handle's put or create, within [`RESEND_MARGIN`] before the first attempt or after it) | [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown) |
//! | there is none (an update or replace, which needs one; a versioned put) | [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown): the first attempt may have been applied to an item deleted since |
//!
//! When every attempt lost its answer, the write is [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown) too. Its
//! source is the error of the first attempt that lost its answer. Its [`Pending`] goes to
//! [`Table::resolve`](crate::Table::resolve) on a handle of the same table. It fences the item
//! first: a write of the history alone, with a token newer than the write's, so that no copy
//! of the write still held by the network can be applied after the answer. Then it answers
//! [`Resolved`] by the same rules, from the item as it was before the fence.
//!
//! A delete leaves no item to hold its token: it is conditional on the order alone, and its
//! resend also on the history reaching back to before the first attempt (or there being no
//! item). An item whose history
//! is too recent may stand where the delete removed one: [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown).
//! An absent item answers [`Returned::Lost`](crate::error::Returned::Lost).
//!
//! # Attempts
//!
//! A write gets as many attempts as the handle's SDK client allows (its retry configuration's
//! `max_attempts`: 3 by default in the SDK's standard mode); the library sends them itself,
//! with the SDK's own retries off for these requests. A throttled attempt waits the library's
//! backoff ([`retry`](crate::retry)); an attempt that lost its answer is resent at once.
//!
//! Transactions, batch writes and the writes of entities with unique fields add nothing to
//! items: DynamoDB's `ClientRequestToken` makes a transaction's resends safe (see
//! [`transact`](crate::transact)), and a batch says which writes may have been applied
//! ([`batch`](crate::batch)). A put of theirs leaves an item with no history.
//!
//! # Limits
//!
//! | case | what happens |
//! |---|---|
//! | a busy or new item: four writes, or another handle's put or create, within [`RESEND_MARGIN`] (1 s) before the first attempt or after it | the library cannot tell, and says so ([`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown); [`Resolved::CannotTell`]), even for an attempt that was not applied. An item written four times a second or more cannot recover a lost answer this way |
//! | a writer that writes no history (another client, a transaction, a batch write, a handle without write tokens) replaces the item, or deletes and creates it, between the first attempt and the resend | its item has no history: the resend judges the first attempt not applied, and a write applied before the replacement is applied again to the new item (a delete deletes it) |
//! | clocks | a resend judges "not applied" from how far the history reaches back, by the writers' clocks: they must agree within [`RESEND_MARGIN`]. A writer whose clock is ahead pushes the item's tokens ahead: the other writers' writes of that item take one more request each until their clocks pass it, and their tokens stand a millisecond apart meanwhile, so a lost answer on that item cannot be judged (the history looks four writes within the margin: [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown), [`Resolved::CannotTell`]). A `_w1` at the end of time (all bytes 0xFF) refuses every write: [`Error::Contended`](crate::Error::Contended) |
//! | another writer deletes the item between the first attempt and the resend | DynamoDB keeps nothing of a deleted item. A resend of a write that may create the item (put, create, upsert, increment) finds none and creates it, as if it came after the delete, even when the first attempt was applied before it. A write that needs the item says [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown); a delete answers [`Returned::Lost`](crate::error::Returned::Lost) |
//! | an attempt that reaches DynamoDB late (a request the network held past the client's attempt timeout, sent again meanwhile) | it is refused once any newer write of the item was applied, its own resend among them. It is applied again only when the item was deleted since, or replaced by a writer that writes no history: a put creates the item again, a delete deletes what stands there |
//! | [`Table::without_write_tokens`](crate::Table::without_write_tokens) | adds nothing to items: a write whose answer is lost is not sent again ([`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown)) |

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::schema::Item;

/// The attributes of an item's write history, newest first.
pub const HISTORY: [&str; 4] = ["_w1", "_w2", "_w3", "_w4"];

/// The bytes a put's history adds to an item by DynamoDB's rules: `_w1` and 16 bytes.
pub(crate) const PUT_HISTORY_BYTES: usize = 3 + 16;

/// The bytes a whole history adds to an item: four names of 3 bytes and four 16-byte tokens.
pub(crate) const HISTORY_BYTES: usize = 4 * PUT_HISTORY_BYTES;

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

    /// A new token newer than `self`: now, or a millisecond after `self` when the clock is not
    /// past it (another writer's clock ahead of this one's, or two writes within a
    /// millisecond).
    pub(crate) fn above(&self) -> WriteToken {
        WriteToken::at(now_millis().max(self.millis().saturating_add(1)), fastrand::u64(..))
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

    /// The token as DynamoDB stores it: a binary value.
    pub(crate) fn value(&self) -> AttributeValue {
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

/// Starts the history of `item`, the whole item a put, create or replace writes, with `token`
/// in `_w1`: the write replaces the item, and what its history held goes with it. The history
/// then reaches back to this write and no further (see [`seen`]).
pub(crate) fn put_history(item: &mut Item, token: &WriteToken) {
    item.insert(HISTORY[0].to_owned(), token.value());
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

/// Which attempt of a write a condition is for ([`guard`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attempt {
    /// The first attempt of a write, or one sent again after a throttled attempt: the item's
    /// latest token is older than the write's (so a first attempt that reaches DynamoDB after
    /// a newer write, its own resend among them, is refused).
    First,
    /// A resend after an attempt that lost its answer: as the first, and the history reaches
    /// back to before the first attempt (or there is no item, which a write that needs one
    /// refuses by its own condition).
    Resend,
}

/// The history's part of `attempt`'s condition, ANDed to the write's own `condition`, with its
/// names and values; `key` is a key attribute of the item (an item that exists has it);
/// `answered` the token of the item's write the handle got an answer for before the first
/// attempt.
///
/// The history reaches back to before the first attempt when its oldest real entry (the last
/// present and not zero: entries are the newest first, zeros after the real ones) is older than
/// the token's floor, when it holds `answered` followed by an older entry (or none), or when
/// the item has none (written by a client that writes no history: see the limits). Zero
/// entries reach back to nothing: the item may have been deleted and created again just before.
pub(crate) fn guard(
    condition: Option<&str>,
    names: &mut std::collections::HashMap<String, String>,
    values: &mut std::collections::HashMap<String, AttributeValue>,
    token: &WriteToken,
    key: &str,
    answered: Option<&WriteToken>,
    attempt: Attempt,
) -> String {
    let own = guard_own(names, values, token, key, answered, attempt);
    // DynamoDB refuses redundant parentheses: a condition in one pair keeps it alone.
    let (open, c, close) = match condition {
        Some(c) if enclosed(c) => ("", c, ""),
        Some(c) if !c.is_empty() => ("(", c, ")"),
        _ => return own.into_owned(),
    };
    let mut text = String::with_capacity(c.len() + own.len() + 7);
    for part in [open, c, close, " AND ", &own] {
        text.push_str(part);
    }
    text
}

/// The first attempt's guard: every write's token is newer than the item's latest. A history's
/// entries are in order, newest first, and a late attempt is refused once a newer write was
/// applied.
const ORDER: &str = "(attribute_not_exists(#w1) OR #w1 < :wt)";

/// The history's part of [`guard`] alone, with its names and values.
pub(crate) fn guard_own(
    names: &mut std::collections::HashMap<String, String>,
    values: &mut std::collections::HashMap<String, AttributeValue>,
    token: &WriteToken,
    key: &str,
    answered: Option<&WriteToken>,
    attempt: Attempt,
) -> std::borrow::Cow<'static, str> {
    names.insert(HISTORY_NAMES[0].to_owned(), HISTORY[0].to_owned());
    values.insert(":wt".to_owned(), token.value());
    if attempt == Attempt::First {
        return ORDER.into();
    }
    add_names(names);
    names.insert("#wk".to_owned(), key.to_owned());
    values.insert(":wf".to_owned(), token.floor().value());
    values.insert(":wz".to_owned(), WriteToken([0; 16]).value());
    // The answered write, with the entry after it older than it (a late attempt applied
    // again would stand before newer entries).
    let known = match answered {
        Some(answered) => {
            values.insert(":wa".to_owned(), answered.value());
            " OR #w4 = :wa OR (#w3 = :wa AND (attribute_not_exists(#w4) OR #w4 < :wa)) \
             OR (#w2 = :wa AND (attribute_not_exists(#w3) OR #w3 < :wa)) \
             OR (#w1 = :wa AND (attribute_not_exists(#w2) OR #w2 < :wa))"
        }
        None => "",
    };
    std::borrow::Cow::Owned(format!(
        "{ORDER} AND (attribute_not_exists(#wk) OR attribute_not_exists(#w1){known} OR (#w4 > :wz AND #w4 < :wf) \
         OR ((attribute_not_exists(#w4) OR #w4 = :wz) AND #w3 > :wz AND #w3 < :wf) \
         OR ((attribute_not_exists(#w3) OR #w3 = :wz) AND #w2 > :wz AND #w2 < :wf) \
         OR ((attribute_not_exists(#w2) OR #w2 = :wz) AND #w1 > :wz AND #w1 < :wf))"
    ))
}

/// What the largest guard of a write adds to its condition (a resend's, with an answered
/// write) as [`limits::surely_fits`](crate::limits::surely_fits) bounds it, for an item whose
/// key attribute `key` (`#wk`) is that many bytes long. The guard's text is the same for every
/// write: it is measured once.
pub(crate) fn resend_guard(key: usize) -> crate::limits::Prefix {
    static MEASURED: std::sync::OnceLock<crate::limits::Prefix> = std::sync::OnceLock::new();
    let measured = *MEASURED.get_or_init(|| {
        let (mut names, mut values) = Default::default();
        let token = WriteToken([0xff; 16]);
        let text = guard_own(&mut names, &mut values, &token, "", Some(&token), Attempt::Resend);
        crate::limits::Prefix::measure(&text, &names, &values)
    });
    crate::limits::Prefix {
        substitutions: measured.substitutions + key,
        longest_name: measured.longest_name.max(key),
        ..measured
    }
}

/// Whether `c` is enclosed whole in one pair of parentheses, as `(a OR b)` is and `(a) OR (b)`
/// is not.
fn enclosed(c: &str) -> bool {
    if !c.starts_with('(') {
        return false;
    }
    let mut depth = 0usize;
    for (i, b) in c.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i == c.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// What an item's history says of the write with `token`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen {
    /// The write was applied; `latest` when no write came after it.
    Applied { latest: bool },
    /// The history reaches back to before the write and does not hold it: not applied.
    NotApplied,
    /// The history is too recent (a busy item, a put or create since), there is none (another
    /// client's write), or there is no item (the write may have been applied to one deleted
    /// since): it cannot tell.
    CannotTell,
}

/// The entries of `item`'s history, newest first (`None`: absent, or not a token).
fn entries(item: &Item) -> [Option<WriteToken>; 4] {
    HISTORY.map(|a| item.get(a).and_then(WriteToken::read))
}

/// The latest entry of `item`'s history (`_w1`), when it holds a token.
pub(crate) fn latest(item: &Item) -> Option<WriteToken> {
    item.get(HISTORY[0]).and_then(WriteToken::read)
}

/// Whether the history `entries` reaches back to before the write with `token` (see [`guard`]):
/// it holds `answered` with an older entry (or none) after it, its oldest real entry (the last
/// present and not zero) is older than the token's floor, or there is none (no `_w1`).
fn reaches_back(entries: &[Option<WriteToken>; 4], token: &WriteToken, answered: Option<&WriteToken>) -> bool {
    if entries[0].is_none() {
        return true;
    }
    if let Some(at) = answered.and_then(|a| entries.iter().position(|e| e.as_ref() == Some(a))) {
        if entries.get(at + 1).and_then(|e| e.as_ref()).is_none_or(|next| Some(next) < answered) {
            return true;
        }
    }
    let zero = WriteToken([0; 16]);
    let oldest = entries.iter().map_while(|e| e.filter(|t| *t != zero)).last();
    oldest.is_some_and(|oldest| oldest < token.floor())
}

/// What the history of `item` (`None`: no item) says of the write with `token` (`answered`: see
/// [`guard`]).
pub(crate) fn seen(item: Option<&Item>, token: &WriteToken, answered: Option<&WriteToken>) -> Seen {
    let Some(item) = item else { return Seen::CannotTell };
    let entries = entries(item);
    if let Some(at) = entries.iter().position(|e| e.as_ref() == Some(token)) {
        return Seen::Applied { latest: at == 0 };
    }
    if reaches_back(&entries, token, answered) { Seen::NotApplied } else { Seen::CannotTell }
}

/// What the history of `item`, which a delete with `token` found still there, says of it: not
/// applied when the history reaches back to before the delete; otherwise the item may stand
/// where the delete removed one.
pub(crate) fn seen_by_delete(item: &Item, token: &WriteToken, answered: Option<&WriteToken>) -> Seen {
    if reaches_back(&entries(item), token, answered) { Seen::NotApplied } else { Seen::CannotTell }
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
    Item { key: Item, token: WriteToken, tokens: bool, delete: bool, answered: Option<WriteToken> },
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
    /// The write was not applied, and no copy of it still on its way can be applied any more
    /// (the item was fenced). Sending it again is safe. For a `TransactWriteItems`: sent
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

    fn item(entries: &[WriteToken]) -> Item {
        let mut item = Item::new();
        for (attribute, token) in HISTORY.iter().zip(entries) {
            item.insert((*attribute).to_owned(), token.value());
        }
        item
    }

    const ZERO: WriteToken = WriteToken([0; 16]);

    #[test]
    fn the_history_says_applied_not_applied_or_cannot_tell() {
        let ours = WriteToken::at(10_000, 7);
        let at = |ms: u64| WriteToken::at(ms, 1);
        // Ours is the latest, or a later write came after it.
        assert_eq!(seen(Some(&item(&[ours, at(9_000)])), &ours, None), Seen::Applied { latest: true });
        assert_eq!(seen(Some(&item(&[at(10_001), ours])), &ours, None), Seen::Applied { latest: false });
        // A full history whose oldest entry is past the margin: not applied.
        let old = [at(10_002), at(10_001), at(9_500), at(8_999)];
        assert_eq!(seen(Some(&item(&old)), &ours, None), Seen::NotApplied);
        // Four writes within the margin: ours may be among those pushed out.
        let recent = [at(10_003), at(10_002), at(10_001), at(9_000)];
        assert_eq!(seen(Some(&item(&recent)), &ours, None), Seen::CannotTell);
        // No item: it may have been deleted after the write. No history: another client's item,
        // judged not applied (a limit of the module).
        assert_eq!(seen(None, &ours, None), Seen::CannotTell);
        assert_eq!(seen(Some(&Item::new()), &ours, None), Seen::NotApplied);
        // A recent history that holds a write the handle got an answer for before the first
        // attempt reaches back to before it.
        let answered = at(9_990);
        assert_eq!(seen(Some(&item(&[answered])), &ours, None), Seen::CannotTell);
        assert_eq!(seen(Some(&item(&[answered])), &ours, Some(&answered)), Seen::NotApplied);
        assert_eq!(seen(Some(&item(&[at(9_995), answered, ZERO, ZERO])), &ours, Some(&answered)), Seen::NotApplied);
        assert_eq!(seen(Some(&item(&[at(9_997), answered, at(9_980)])), &ours, Some(&answered)), Seen::NotApplied);
        // Not before newer entries: a token that came back after them (a late attempt applied
        // again) says nothing of what came before it.
        assert_eq!(seen(Some(&item(&[answered, at(9_995), at(9_993)])), &ours, Some(&answered)), Seen::CannotTell);
    }

    #[test]
    fn a_history_reaches_back_to_its_oldest_real_entry_and_no_further() {
        let ours = WriteToken::at(10_000, 7);
        let at = |ms: u64| WriteToken::at(ms, 1);
        // A put or create: `_w1` alone, its own time the history's start.
        let mut put = Item::new();
        put_history(&mut put, &at(9_990));
        assert_eq!(put.len(), 1);
        assert_eq!(seen(Some(&put), &ours, None), Seen::CannotTell, "10 ms before: it may have replaced the write");
        let mut old = Item::new();
        put_history(&mut old, &at(8_500));
        assert_eq!(seen(Some(&old), &ours, None), Seen::NotApplied);
        // Updates after it fill the entries they lack with zeros, which reach back to nothing.
        assert_eq!(seen(Some(&item(&[at(10_003), at(9_990), ZERO, ZERO])), &ours, None), Seen::CannotTell);
        assert_eq!(seen(Some(&item(&[at(10_003), at(10_001), at(8_500), ZERO])), &ours, None), Seen::NotApplied);
        // A delete judges the same history without a token of its own.
        assert_eq!(seen_by_delete(&item(&[at(9_990), ZERO, ZERO, ZERO]), &ours, None), Seen::CannotTell);
        assert_eq!(seen_by_delete(&item(&[at(10_003), at(8_500), ZERO, ZERO]), &ours, None), Seen::NotApplied);
        assert_eq!(seen_by_delete(&Item::new(), &ours, None), Seen::NotApplied);
        // A value that is not a token ends the real entries.
        let mut odd = item(&[at(10_003)]);
        odd.insert(HISTORY[1].to_owned(), AttributeValue::S("x".into()));
        assert_eq!(seen(Some(&odd), &ours, None), Seen::CannotTell);
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

    #[test]
    fn a_condition_in_one_pair_of_parentheses_is_not_wrapped_again() {
        assert!(enclosed("(a OR b)"));
        assert!(enclosed("((a) OR (b))"));
        assert!(!enclosed("(a) OR (b)"));
        assert!(!enclosed("attribute_not_exists(#pk)"));
        let token = WriteToken::at(10_000, 7);
        let (mut names, mut values) = (Default::default(), Default::default());
        let first = guard(Some("(a OR b)"), &mut names, &mut values, &token, "PK", None, Attempt::First);
        assert_eq!(first, "(a OR b) AND (attribute_not_exists(#w1) OR #w1 < :wt)");
    }

    #[test]
    fn each_attempt_has_its_guard() {
        let token = WriteToken::at(10_000, 7);
        let (mut names, mut values) = (Default::default(), Default::default());
        let first = guard(Some("a = :a"), &mut names, &mut values, &token, "PK", None, Attempt::First);
        assert_eq!(first, "(a = :a) AND (attribute_not_exists(#w1) OR #w1 < :wt)");
        assert_eq!(values.len(), 1);
        let alone = guard(None, &mut names, &mut values, &token, "PK", None, Attempt::First);
        assert_eq!(alone, "(attribute_not_exists(#w1) OR #w1 < :wt)");
        assert_eq!(guard(Some(""), &mut names, &mut values, &token, "PK", None, Attempt::First), alone);
        assert_eq!((names.len(), values.len()), (1, 1));
        assert_eq!(values.get(":wt"), Some(&token.value()));
        let resend =
            guard(None, &mut names, &mut values, &token, "PK", Some(&WriteToken::at(9_990, 1)), Attempt::Resend);
        assert!(
            resend.starts_with(
                "(attribute_not_exists(#w1) OR #w1 < :wt) AND (attribute_not_exists(#wk) OR attribute_not_exists(#w1) \
                 OR #w4 = :wa OR (#w3 = :wa AND "
            ),
            "{resend}"
        );
        assert_eq!(names.get("#wk").map(String::as_str), Some("PK"));
        assert_eq!(values.get(":wf"), Some(&WriteToken::at(9_000, 0).value()));
        let plain = guard(None, &mut names, &mut values, &token, "PK", None, Attempt::Resend);
        assert!(
            plain.starts_with(
                "(attribute_not_exists(#w1) OR #w1 < :wt) AND (attribute_not_exists(#wk) OR \
                 attribute_not_exists(#w1) OR (#w4 > :wz"
            ),
            "{plain}"
        );
    }

    #[test]
    fn a_token_above_another_is_newer_even_when_the_clock_is_behind() {
        let ahead = WriteToken::at(now_millis() + 60_000, u64::MAX);
        let above = ahead.above();
        assert!(above > ahead);
        assert_eq!(above.millis(), ahead.millis() + 1);
        let behind = WriteToken::at(1_000, 5);
        assert!(behind.above().millis() >= now_millis() - 1_000);
        let mut item = Item::new();
        assert_eq!(latest(&item), None);
        put_history(&mut item, &ahead);
        assert_eq!(latest(&item), Some(ahead));
    }

    /// The bound [`resend_guard`] gives agrees with the exact check of the request as a resend
    /// sends it, at the operator limit and at the substituted size's.
    #[test]
    fn the_resend_guards_bound_agrees_with_the_exact_check() {
        use std::collections::HashMap;
        let exact = |condition: &str, names: &HashMap<String, String>, values: &HashMap<String, AttributeValue>| {
            let (mut names, mut values) = (names.clone(), values.clone());
            let token = WriteToken::new();
            let own = guard_own(&mut names, &mut values, &token, "PK", Some(&token), Attempt::Resend);
            let condition = format!("{own} AND ({condition})");
            crate::limits::check_request(&[("ConditionExpression", &condition, false, 0)], Some(&names), Some(&values))
                .is_ok()
        };
        let guard = resend_guard("PK".len());
        let names = HashMap::from([("#a".to_owned(), "a".to_owned())]);
        let values = HashMap::from([(":b".to_owned(), AttributeValue::N("1".to_owned()))]);
        // n clauses `#a = :b` joined by AND: 2n - 1 operators, beside the guard's and its AND.
        let fits: Vec<bool> = (118..=126)
            .map(|n| {
                let condition = vec!["#a = :b"; n].join(" AND ");
                let bound = crate::limits::surely_fits("", &condition, Some(&names), Some(&values), &guard);
                assert_eq!(bound, exact(&condition, &names, &values), "{n} clauses");
                bound
            })
            .collect();
        assert_eq!(fits, [true, true, true, true, true, false, false, false, false]);
        // 55 operators, 56 with the AND that joins it (the limits test's figure).
        assert_eq!(guard.operators, 55);
        // A value so large that the bound of the substituted size passes 1 MB: not surely.
        let big = HashMap::from([(":b".to_owned(), AttributeValue::S("x".repeat(600_000)))]);
        assert!(!crate::limits::surely_fits("", "#a = :b AND #a = :b", Some(&names), Some(&big), &guard));
        assert!(!exact("#a = :b AND #a = :b", &names, &big));
        // One use fits, but the bound counts each of the guard's value uses at the largest
        // value: not surely, so the update is checked exactly (and fits).
        assert!(!crate::limits::surely_fits("", "#a = :b", Some(&names), Some(&big), &guard));
        assert!(exact("#a = :b", &names, &big));
    }
}
