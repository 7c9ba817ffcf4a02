//! The crate's one error type.

mod item;
mod outcome;
pub(crate) mod service;

pub use item::{ItemError, Returned};
pub(crate) use service::retryable_code;
pub use service::{ThrottleLimit, ThrottledAccess, ThrottledResource, ThrottlingReason};

pub use outcome::{
    ActionKind, BatchWriteOutcome, CancellationCode, CancellationReason, UnprocessedKey, UnprocessedReason,
    UnprocessedWrite, WriteKind,
};

use crate::key::{KeyError, KeyParseError};
use crate::value::ValueError;

/// Everything that can go wrong in this crate.
///
/// Every variant that concerns an item names the entity type and the item's key (`PK=… SK=…`)
/// so that the failing item can be found in the table.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A create-if-absent write found the item already there (`attribute_not_exists(PK)` failed).
    /// For an idempotent write such as recording a purchase, this means "already done".
    #[error("{entity} {key} already exists")]
    AlreadyExists {
        /// The entity type name.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
    },
    /// An update or conditional write found no item with this key.
    #[error("{entity} {key} does not exist")]
    NotFound {
        /// The entity type name.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
    },
    /// An upsert (or increment) found no item, and cannot create one: the item it would create
    /// is not a valid `entity` (`reason`: a field that is not an `Option` was given no value).
    /// Nothing was written. Such an upsert changes an existing item with only the fields it
    /// writes; give the missing fields a value (`set`, `set_if_absent`) for it to create one.
    #[error("{entity} {key} does not exist, and the upsert cannot create it: {reason}")]
    CannotCreate {
        /// The entity type name.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// Why the item it would create is not valid (the decode error).
        reason: String,
    },
    /// A write's condition expression was not met (`ConditionalCheckFailedException`).
    #[error("the condition on {entity} {key} was not met")]
    ConditionFailed {
        /// The entity type name.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
    },
    /// A write of a versioned entity (`#[entity(version)]`) lost a race: the stored version is
    /// not the one the value was read with, so another write came first (DynamoDB refused the
    /// write's version condition). Nothing was written. Read the item again and apply the
    /// change to it. See [`versioning`](crate::versioning).
    #[error(
        "{entity} {key} changed since it was read: expected version {expected}, found {}",
        found.map_or_else(|| "no stored version".to_owned(), |v| format!("version {v}"))
    )]
    VersionConflict {
        /// The entity type name.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// The version the write expected to find stored: the value's (0: not stored yet).
        expected: u64,
        /// The version stored, from the item DynamoDB returned with the failed condition;
        /// `None` when there is no item (it was deleted) or it has no version attribute.
        found: Option<u64>,
    },
    /// A write would give a second item the value of a unique field (`#[entity(unique)]`): the
    /// value's guard item belongs to another item. Nothing was written. See
    /// [`unique`](crate::unique).
    #[error("{entity}.{field} must be unique, and {value:?} belongs to another {entity}")]
    UniqueViolation {
        /// The entity type name.
        entity: &'static str,
        /// The unique field.
        field: &'static str,
        /// The value (numbers in canonical form, binary data as URL-safe base64).
        value: String,
    },
    /// DynamoDB canceled a transaction (`TransactionCanceledException`): none of its actions was
    /// applied. `reasons` lists the actions that failed, each with the index it had in the
    /// request, its entity type and key, and the reason; see
    /// [`transact`](crate::transact).
    #[error("transaction canceled: {}", outcome::describe(.reasons))]
    TransactionCanceled {
        /// The failed actions, in request order.
        reasons: Vec<CancellationReason>,
    },
    /// A key could not be encoded; nothing was sent.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A key in the table does not have the shape of its template.
    #[error(transparent)]
    KeyParse(#[from] KeyParseError),
    /// An attribute of an item read from the table does not decode into its field.
    #[error("cannot decode {entity} {key}: attribute `{attribute}`: {source}")]
    Decode {
        /// The entity: its type name, or `UserOrder (type ORDER)` when the Rust type's name
        /// differs from it ([`EntitySchema::label`](crate::schema::EntitySchema::label)).
        entity: &'static str,
        /// The attribute name in the item.
        attribute: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// What is wrong with the value (expected and found type, number out of range, …).
        #[source]
        source: ValueError,
    },
    /// An item read as one entity type carries another type (or none) in its entity type
    /// attribute.
    #[error("item {key} has entity type {}, expected {expected}", found.as_deref().unwrap_or("<none>"))]
    WrongEntity {
        /// The entity type that was asked for.
        expected: &'static str,
        /// The value of the type attribute (its type when it is not a string), `None` when
        /// absent.
        found: Option<String>,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
    },
    /// An item of a versioned entity (`#[entity(schema(version = N))]`) whose stored schema
    /// version the entity does not declare: newer than the struct read (a newer program wrote
    /// it) or older than the oldest version still declared. Nothing is decoded, and a lenient
    /// read reports the item among its skipped items. See [`evolve`](crate::schema::evolve).
    #[error(
        "{entity} {key} has schema version {stored}, {}: {entity} declares versions {oldest} to {newest}",
        if *stored > u64::from(*newest) { "newer than this program knows" } else { "older than the oldest version declared" }
    )]
    SchemaVersion {
        /// The entity type name.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// The version stored on the item.
        stored: u64,
        /// The oldest version the entity's chain of `from` structs declares.
        oldest: u32,
        /// The entity's own version, the newest it reads.
        newest: u32,
    },
    /// A write of a versioned entity (`#[entity(schema(version = N))]`) found the item stored
    /// at another schema version than the one it writes, so its condition refused it and
    /// nothing was written. Two cases:
    ///
    /// * An update or an upsert ([`Table::update`](crate::Table::update),
    ///   [`Table::upsert`](crate::Table::upsert), [`Table::increment`](crate::Table::increment))
    ///   found the item at an **earlier** version (`stored < current`). It would write fields of
    ///   version `current` onto an item that stays read as version `stored`: reads would decode
    ///   the old shape and drop what it wrote. Upgrade the item first
    ///   ([`Table::upgrade_key`](crate::Table::upgrade_key)), then send the write again. See
    ///   [`upsert`](crate::update::upsert).
    /// * A put, a replace, an update or an upsert ([`Table::put`](crate::Table::put),
    ///   [`Table::replace`](crate::Table::replace), the three above) found the item at a
    ///   **newer** version (`stored > current`), as a newer program wrote it. Writing it at
    ///   version `current` would lose what only version `stored` holds, or write fields that
    ///   version `stored` no longer reads. Write the item from code that knows version
    ///   `stored`. See [`evolve`](crate::schema::evolve#writes).
    ///
    /// | the write's version | the item's version | result |
    /// |---|---|---|
    /// | `current` | `current` | written |
    /// | `current` | earlier (`stored < current`) | a put or replace: written at `current`; an update or upsert: this error |
    /// | `current` | newer (`stored > current`) | this error, for every write |
    ///
    /// A read of an item at a version the struct does not declare is
    /// [`Error::SchemaVersion`] instead: nothing was written, and nothing is decoded.
    ///
    /// ```
    /// use dynamo_entity::Error;
    ///
    /// let e = Error::UpgradeRequired { operation: "put", entity: "Ticket", key: "PK=TICKET#1 SK=META".into(), stored: 2, current: 1 };
    /// assert_eq!(
    ///     e.to_string(),
    ///     "Ticket PK=TICKET#1 SK=META is stored at schema version 2, newer than version 1 this put writes; \
    ///      nothing was written: write it from a program that knows version 2"
    /// );
    /// ```
    #[error(
        "{entity} {key} is stored at schema version {stored}, {}",
        upgrade_required_advice(*.stored, *.current, .operation)
    )]
    UpgradeRequired {
        /// The write refused: `"update"` or `"upsert"` (an increment is an upsert) on an item
        /// of an earlier version; `"put"` or `"replace"` on an item of a newer version.
        operation: &'static str,
        /// The entity type name.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// The schema version stored on the item (the oldest declared one when it has none).
        stored: u64,
        /// The entity's own schema version, which the write writes.
        current: u32,
    },
    /// A field's value cannot be stored in DynamoDB; nothing was sent.
    #[error("cannot encode {entity}.{field} (attribute `{attribute}`): {source}")]
    Encode {
        /// The entity type name.
        entity: &'static str,
        /// The struct field.
        field: &'static str,
        /// The attribute name.
        attribute: &'static str,
        /// The DynamoDB rule the value breaks.
        #[source]
        source: ValueError,
    },
    /// An item collection lacks an item its collection type requires (such as the skill of a
    /// skill page).
    #[error("{collection}.{field}: no {entity} item in the collection (first item: {partition})")]
    MissingItem {
        /// The collection type.
        collection: &'static str,
        /// The field that requires the item.
        field: &'static str,
        /// The entity type that is missing.
        entity: &'static str,
        /// The first item's key, or "an empty partition".
        partition: String,
    },
    /// An item collection holds two items for a field that takes one.
    #[error("{collection}.{field} takes one item, but the collection holds another: {key}")]
    DuplicateItem {
        /// The collection type.
        collection: &'static str,
        /// The field.
        field: &'static str,
        /// The key of the second item.
        key: String,
    },
    /// An item of an entity type the collection does not name, read in strict mode.
    #[error(
        "{collection} does not hold {}: {key}",
        found.as_deref().map_or("items without an entity type".to_owned(), |t| format!("items of entity type `{t}`"))
    )]
    UnexpectedItem {
        /// The collection type.
        collection: &'static str,
        /// The item's entity type attribute, if any.
        found: Option<String>,
        /// The item's key.
        key: String,
    },
    /// An item that belongs to entities of the table by its type value (in a table without a
    /// type attribute, by the first segment of each key, which begins their templates) but fits
    /// the key templates of none of them: another writer's older key form, or a kind of item
    /// no entity describes. Reads report it (strict: this error; lenient: an
    /// [`ItemError`] carrying it) rather than pass over it as another
    /// entity's.
    #[error(
        "{} fits the key templates of none of its entities, {}: {key}",
        found.as_deref().map_or("an item without an entity type".to_owned(), |t| format!("an item of entity type `{t}`")),
        entities.join("; ")
    )]
    KeyFitsNoEntity {
        /// The item's entity type attribute, if any.
        found: Option<String>,
        /// Each entity it could be, with its primary key templates, such as
        /// ``UserOrder (PK `USER#<user_id>`, SK `ORDER#<day>#<order_id>`)``.
        entities: Vec<String>,
        /// The item's key.
        key: String,
    },
    /// An `add` / `subtract` would take a number outside its field's type (a `u64` past
    /// `u64::MAX`, an unsigned counter below zero); DynamoDB refused it through the update's
    /// range condition and nothing changed.
    #[error("{entity} {key}: {field} = {stored} {op} {amount} would leave the field's range")]
    OutOfRange {
        /// The entity type name.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// The field.
        field: &'static str,
        /// The stored value.
        stored: String,
        /// `+` or `-`.
        op: char,
        /// The amount.
        amount: String,
    },
    /// A pagination cursor that is malformed or belongs to another query.
    #[error("invalid cursor: {reason}")]
    Cursor {
        /// What is wrong with it.
        reason: String,
    },
    /// A request that cannot be built as asked (such as a table schema whose entities disagree
    /// on a key attribute's type); nothing was sent.
    #[error("invalid request: {reason}")]
    Invalid {
        /// What is wrong with it.
        reason: String,
    },
    /// A migration's pass over the items of an entity (a backfill, a re-keying, a bulk upgrade,
    /// a native-key fill) ended with items it could not migrate: they do not decode, their keys
    /// do not encode, or their condition kept failing while the application wrote them. Every
    /// other item is done and the pass's checkpoints are kept; the migration runner records the
    /// migration as stopped, and `resume` (or `apply`) runs the pass again, which writes only
    /// the items still not migrated.
    #[error(
        "migration {id}: {failed} {entity} item(s) could not be migrated{}; every other item is done: mend them, \
         then resume the migration to retry them",
        failure_list(failures, *failed)
    )]
    ItemsFailed {
        /// The migration id.
        id: String,
        /// The entity type name.
        entity: &'static str,
        /// How many items failed.
        failed: u64,
        /// The first failures (at most 100): each item's key (`PK=… SK=…`) and why.
        failures: Vec<(String, String)>,
    },
    /// A migration runner ([`Migrations::apply`](crate::migrate::Migrations::apply) or
    /// `resume`) lost its claim on the step it was running: its heartbeat found the step's record
    /// (`_MIGRATION#<id>` / `STEP`) no longer `running` under its name, because another runner
    /// took the step over after this one's heartbeat went stale (a process paused, or cut off
    /// from DynamoDB, for three heartbeat periods). This runner stopped the step (its future is
    /// dropped: a pass writes nothing more, a custom step is not polled again) and did not
    /// record it applied; the record is the other runner's. Nothing after it was started.
    #[error(
        "migration {id}: the runner {worker} lost its claim on the step to {}; it stopped the step and did not \
         record it applied",
        holder_text(holder.as_deref(), recorded.as_deref())
    )]
    MigrationTakenOver {
        /// The migration id.
        id: String,
        /// This runner's worker name.
        worker: String,
        /// The worker the step's record names now; `None` when the record is gone.
        holder: Option<String>,
        /// The status that record says (`running`, `applied` or `failed`), if any.
        recorded: Option<String>,
    },
    /// A scan of a native multi-attribute GSI (declared `#[entity(gsiN(pk(...), sk(...)))]`),
    /// which [`ScanRequest::index`](crate::query::scan::ScanRequest::index) does not read;
    /// query the index with the entity's generated `gsiN(...)` builder instead. Nothing was
    /// sent.
    #[error(
        "a scan of {entity} on {index} is not supported: {index} is a native multi-attribute GSI; query it with the \
         generated builder instead"
    )]
    NativeIndexScan {
        /// The entity scanned.
        entity: &'static str,
        /// The index, by its name (`GSI6`).
        index: String,
    },
    /// A query (or scan) of a secondary index whose filter reads an attribute that the index's
    /// projection leaves out (`KEYS_ONLY`, or `INCLUDE` without it): refused when the request
    /// was built, nothing was sent. An index item holds only the table's and the index's key
    /// attributes and the projected ones, and DynamoDB refuses a `Query` whose filter reads any
    /// other (`ValidationException`: "Secondary index … does not project one or more filter
    /// attributes"). Only the top-level attribute of a path counts: a filter on a map entry
    /// `a.b` or a list element `a[2]` needs `a` projected.
    ///
    /// Filter the items after reading them (the query reads the whole items of such an index,
    /// see [`QueryRequest::send`](crate::query::QueryRequest::send)), or project the
    /// attributes into the index (`include(...)` in the table declaration). Checked when the
    /// handle knows the index's projection ([`Table::declared`](crate::Table::declared),
    /// [`Table::with_layout`](crate::Table::with_layout), a handle that created the table from
    /// its layout); see [`QueryRequest::filter`](crate::query::QueryRequest::filter).
    #[error(
        "{operation} of {entity} on {index}: the filter reads {}, which {index} does not project ({projection}); \
         nothing was sent: filter the items after reading them, or project {} into {index}",
        quoted(attributes),
        if attributes.len() == 1 { "the attribute" } else { "the attributes" }
    )]
    FilterNotProjected {
        /// The DynamoDB operation: `Query` or `Scan`.
        operation: &'static str,
        /// The entity type name.
        entity: &'static str,
        /// The index, by its name (`GSI1`).
        index: &'static str,
        /// The index's projection as DynamoDB writes it: `KEYS_ONLY`, or `INCLUDE` with its
        /// attributes (`INCLUDE (title, subtitle)`).
        projection: String,
        /// The attributes the filter reads that the index does not project, in the order the
        /// filter names them.
        attributes: Vec<&'static str>,
    },
    /// Two entries of one batch name the same item (same `PK` and `SK`, whatever their entity
    /// types), which DynamoDB rejects as a whole request; nothing was sent. Positions are
    /// 0-based, in the order the entries were added.
    #[error(
        "duplicate key {key} in one batch: position {first} ({first_entity}) and position {second} ({second_entity}); DynamoDB rejects a batch that names one item twice"
    )]
    DuplicateKey {
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// The position of the first entry naming it.
        first: usize,
        /// The entity type of the first entry.
        first_entity: &'static str,
        /// The position of the second entry naming it.
        second: usize,
        /// The entity type of the second entry.
        second_entity: &'static str,
    },
    /// An item over DynamoDB's item size limit (400 KB, counted by
    /// [`size::item_size`](crate::schema::size::item_size)); nothing was sent. For an update
    /// (`UpdateItem`, an upsert, a transaction's update), `size` is the size of its key, its
    /// entity type attribute and the attributes it sets outright (`SET a = :v`): a lower bound
    /// of the updated item's size.
    #[error("{entity} {key} is {size} bytes, {} over DynamoDB's item size limit of {limit} bytes", size - limit)]
    ItemTooLarge {
        /// The entity type name.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// The item's size in bytes (for an update, the lower bound above).
        size: usize,
        /// The limit, 409,600 bytes.
        limit: usize,
    },
    /// A request over one of DynamoDB's limits (expression length, operators, `IN` operands,
    /// substitution size, nesting, transaction size, …; see [`limits`](crate::limits)): refused
    /// when it was built, nothing was sent.
    #[error(
        "{operation} of {entity}{}{}: {part} has {measured} {}, over DynamoDB's limit of {max} ({limit}){}; nothing was sent",
        if key.is_empty() { "" } else { " " },
        key,
        limit.unit(),
        library_share(*library, *limit)
    )]
    LimitExceeded {
        /// The limit.
        limit: crate::limits::Limit,
        /// The part of the request measured, such as `UpdateExpression` or `ConditionExpression`.
        part: String,
        /// The request's figure.
        measured: usize,
        /// DynamoDB's figure ([`Limit::max`](crate::limits::Limit::max)).
        max: usize,
        /// How much of `measured` the library's own additions account for (the entity-type
        /// guard, the range guards of `add` / `subtract`, a version check); 0 when none.
        library: usize,
        /// The DynamoDB operation, such as `UpdateItem`.
        operation: &'static str,
        /// The entity type name (empty for a request of several types).
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…` (for a query, its partition key); empty when
        /// the request has no one key.
        key: String,
    },
    /// DynamoDB refused an update because an attribute it computes from (an `add` / `subtract`
    /// counter, a list it appends to, a set it inserts into) is stored with another type than
    /// the operand, such as a counter another client wrote as a string (`S "45"`). Nothing was
    /// written; the same update fails again until the stored attribute is rewritten.
    #[error(
        "DynamoDB {operation} of {entity} {key} refused: {} stored with another type than the update's operand \
         (DynamoDB: {}); nothing was written",
        operand_attributes(attributes),
        service::text(source)
    )]
    StoredTypeMismatch {
        /// The DynamoDB operation: `UpdateItem`.
        operation: &'static str,
        /// The entity type name.
        entity: &'static str,
        /// The item's key, as `PK=… SK=…`.
        key: String,
        /// The attributes the update adds to or subtracts from (empty when it has none: then
        /// a list or set operand).
        attributes: Vec<&'static str>,
        /// DynamoDB's error.
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// A read whose answer DynamoDB refused to send because the items it asked for total more
    /// than one response may hold: `TransactGetItems` returns at most 4 MB
    /// ([`MAX_TRANSACTION_BYTES`](crate::limits::MAX_TRANSACTION_BYTES)) of items. Their sizes
    /// are unknown until read, so this cannot be checked before sending; nothing was read, and
    /// the same request fails again. Read the keys in smaller groups, or with
    /// [`Table::batch_get`](crate::Table::batch_get), which pages what does not fit.
    #[error(
        "DynamoDB {operation} of {keys} {entity}{}items refused to answer: their total size is over the {max} bytes \
         one response may hold; read fewer keys at a time ({})",
        if entity.is_empty() { "" } else { " " },
        service::text(source)
    )]
    ResponseTooLarge {
        /// The DynamoDB operation: `TransactGetItems`.
        operation: &'static str,
        /// The entity type name (empty for a read of several types).
        entity: &'static str,
        /// How many keys the request asked for.
        keys: usize,
        /// The most bytes of items one response holds.
        max: usize,
        /// DynamoDB's error.
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// A batch write that did not write every item: from
    /// [`BatchWriteOutcome::check`](crate::batch::BatchWriteOutcome::check), or
    /// from [`BatchWrite::send`](crate::batch::BatchWrite::send) when a request failed with an
    /// error that retrying cannot fix (then `source` is that error). The outcome says what was
    /// written and lists every write that was not.
    #[error("{}", outcome::write_failure_message(outcome, source.as_ref()))]
    BatchWrite {
        /// What the batch did.
        outcome: Box<BatchWriteOutcome>,
        /// The error that stopped the batch, if one did.
        #[source]
        source: Option<std::sync::Arc<Error>>,
    },
    /// A batch get that did not read every key, from
    /// [`BatchGetOutcome::into_result`](crate::batch::BatchGetOutcome::into_result).
    #[error("{}", outcome::get_failure_message(*total, unprocessed))]
    BatchGet {
        /// The number of keys of the batch.
        total: usize,
        /// The keys not read, in position order.
        unprocessed: Vec<UnprocessedKey>,
    },
    /// DynamoDB throttled the request (`ThrottlingException`,
    /// `ProvisionedThroughputExceededException` or `RequestLimitExceeded`), after the SDK's own
    /// retries and, for batches, the library's ([`RetryPolicy`](crate::retry::RetryPolicy)).
    /// Nothing was written. Retryable ([`Error::is_retryable`]). `reasons` says why (see
    /// [`ThrottleLimit`] for what each calls for); a [`ThrottleLimit::KeyRange`] reason is a hot
    /// partition, and `partition` names the partition key value the request went to, the one
    /// to spread with write sharding (the design lint's hot-partition advice).
    #[error("{}", service::throttled_message(operation, entity, partition, exception, reasons, &service::message(source)))]
    Throttled {
        /// The DynamoDB operation, such as `PutItem`.
        operation: &'static str,
        /// The error code: `ThrottlingException`, `ProvisionedThroughputExceededException` or
        /// `RequestLimitExceeded`.
        exception: &'static str,
        /// Why, as DynamoDB said; empty when it gave no reason.
        reasons: Vec<ThrottlingReason>,
        /// The entity type of the request; empty for a request of several types.
        entity: &'static str,
        /// The partition key of the request, as `PK=…` (the item's, or for a query, the
        /// queried index's partition key attribute and value, such as `GSI1PK=…`); empty when the
        /// request names several partitions (batches, transactions, scans).
        partition: String,
        /// The SDK's error (DynamoDB's message is its `message()`).
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// A write to a multi-Region strongly consistent table conflicted with a write of the same
    /// item being replicated from another Region (`ReplicatedWriteConflictException`). Nothing
    /// was written; retryable ([`Error::is_retryable`]): the batches retry it with their
    /// [`RetryPolicy`](crate::retry::RetryPolicy), a single write returns it after the SDK's
    /// own retries.
    #[error(
        "DynamoDB {operation}{}{}{}{}: a write of the same item from another Region was in progress \
         (ReplicatedWriteConflictException{}{}); retryable",
        if entity.is_empty() { "" } else { " of " }, entity,
        if key.is_empty() { "" } else { " " }, key,
        if service::message(source).is_empty() { "" } else { ": " }, service::message(source)
    )]
    ReplicatedWriteConflict {
        /// The DynamoDB operation, such as `PutItem`.
        operation: &'static str,
        /// The entity type of the request; empty for a request of several types.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`; empty for a request of several items.
        key: String,
        /// The SDK's error (DynamoDB's message is its `message()`).
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// The write was not applied: each time it was sent, another writer's write of the item with
    /// a newer write token had been applied first (the history of an item is kept in the order
    /// of its writes; see [`write_token`](crate::write_token)). The library sends it again with a
    /// newer token [`rounds`](Error::Contended::rounds) times before it says so. Retryable
    /// ([`Error::is_retryable`]): the item is written faster than this write gets through.
    #[error(
        "DynamoDB {operation} of {entity} {key}: newer writes of the item came first {rounds} times; not applied, retryable"
    )]
    Contended {
        /// The DynamoDB operation, such as `UpdateItem`.
        operation: &'static str,
        /// The entity type written.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// How many times the write was sent with a newer token.
        rounds: u32,
    },
    /// The write may or may not have been applied: every attempt that could have been applied
    /// lost its answer (an HTTP 5xx, a timeout, a connection failure), or a resend could not
    /// tell from the item's write history (a busy item, a put since, or no item where the write
    /// needs one; see [`write_token`](crate::write_token)). `source` is the error of the first
    /// attempt that lost its answer. Do not send it again blindly:
    /// [`Table::resolve`](crate::Table::resolve)`(error.pending())` reads the table and says
    /// whether it was applied.
    #[error(
        "DynamoDB {operation} of {entity} {key}: the answer was lost and the write may have been applied; \
         Table::resolve(error.pending()) reads the table and says whether it was ({})",
        service::text(source)
    )]
    OutcomeUnknown {
        /// The DynamoDB operation, such as `UpdateItem`.
        operation: &'static str,
        /// The entity type written.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
        /// What identifies the write, for [`Table::resolve`](crate::Table::resolve).
        pending: Box<crate::write_token::Pending>,
        /// The error of the first attempt that lost its answer.
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// The write was applied, but the item it returns was lost with DynamoDB's answer: a resend
    /// found the write applied by an earlier attempt (see [`write_token`](crate::write_token)).
    /// From [`Returned::into_result`] of a [`Returned::Lost`]. Read the item to see it; do not
    /// send the write again.
    #[error("the write of {entity} {key} was applied, but the item it returns was lost with DynamoDB's answer")]
    ReturnedLost {
        /// The entity type written.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
    },
    /// The engine answered that it does not know the operation (`UnknownOperationException`):
    /// DynamoDB Local has no `SearchVectors`, for one (see
    /// [`query::vector`](crate::query::vector)). Nothing was read or written; the same request
    /// fails again on that engine. DynamoDB and Dynoxide implement it.
    #[error(
        "{operation} is not supported by this DynamoDB engine (it answered {}); DynamoDB and Dynoxide implement it, \
         DynamoDB Local does not",
        service::text(source)
    )]
    Unsupported {
        /// The DynamoDB operation, such as `SearchVectors`.
        operation: &'static str,
        /// The engine's answer.
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// The SDK or DynamoDB returned an error; the service error is kept as the source. The text
    /// is the error's code, DynamoDB's message and the request id, or for a failure before an
    /// answer (timeout, connection), its chain of causes.
    #[error("DynamoDB {operation} failed: {}", service::text(source))]
    Sdk {
        /// The DynamoDB operation, such as `PutItem`.
        operation: &'static str,
        /// The SDK's error.
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
}

/// A key error as boxed by the key writers of generated code (which keep their `Result`s the
/// size of a key's text): [`Error::Key`].
impl From<Box<KeyError>> for Error {
    #[cold]
    fn from(e: Box<KeyError>) -> Error {
        Error::Key(*e)
    }
}

/// The end of [`Error::UpgradeRequired`]'s text: what to upgrade, the item or the program.
fn upgrade_required_advice(stored: u64, current: u32, operation: &str) -> String {
    if stored > u64::from(current) {
        format!(
            "newer than version {current} this {operation} writes; nothing was written: write it from a program that \
             knows version {stored}"
        )
    } else {
        format!(
            "older than version {current} this {operation} writes; nothing was written: upgrade the item first \
             (Table::upgrade_key), then {operation} again"
        )
    }
}

impl Error {
    /// [`Error::UnexpectedItem`] for `item`, read as the entity enum or collection named
    /// `collection`, under the attribute names `names`.
    pub(crate) fn unexpected_item(
        collection: &'static str,
        item: &crate::value::Item,
        names: &crate::key::names::AttributeNames,
    ) -> Error {
        let found = match item.get(names.entity_type) {
            Some(aws_sdk_dynamodb::types::AttributeValue::S(t)) => Some(t.clone()),
            _ => None,
        };
        Error::UnexpectedItem { collection, found, key: names.describe_key(item) }
    }

    /// [`Error::WrongEntity`] for `item`, read where an item of entity `expected` was wanted:
    /// the error names what the item's type attribute under `names` holds (or its absence) and
    /// the item's key.
    #[cold]
    #[inline(never)]
    pub(crate) fn wrong_entity(
        expected: &'static str,
        item: &crate::value::Item,
        names: &crate::key::names::AttributeNames,
    ) -> Error {
        Error::WrongEntity {
            expected,
            found: item.get(names.entity_type).map(type_value_text),
            key: names.describe_key(item),
        }
    }

    /// A copy of an error found while a request was built (a key that does not encode, an
    /// invalid argument), kept by the builder and returned each time it is sent or rendered.
    /// Such errors are `Key`, `Encode` or `Invalid`; any other kind is copied as its text.
    pub(crate) fn copy_of_build_error(&self) -> Error {
        match self {
            Error::Key(k) => Error::Key(k.clone()),
            Error::Invalid { reason } => Error::Invalid { reason: reason.clone() },
            Error::NativeIndexScan { entity, index } => Error::NativeIndexScan { entity, index: index.clone() },
            Error::LimitExceeded { limit, part, measured, max, library, operation, entity, key } => {
                Error::LimitExceeded {
                    limit: *limit,
                    part: part.clone(),
                    measured: *measured,
                    max: *max,
                    library: *library,
                    operation,
                    entity,
                    key: key.clone(),
                }
            }
            other => Error::Invalid { reason: other.to_string() },
        }
    }

    /// The error of `operation` failing with the SDK's error `err`: [`Error::Throttled`],
    /// [`Error::ReplicatedWriteConflict`] or [`Error::Sdk`]. The request's entity, key and
    /// partition are added by [`Error::on_item`] / [`Error::on_partition`].
    pub(crate) fn sdk<E>(operation: &'static str, err: E) -> Error
    where
        aws_sdk_dynamodb::Error: From<E>,
    {
        let source = aws_sdk_dynamodb::Error::from(err);
        if let Some((exception, reasons)) = service::throttling(&source) {
            return Error::Throttled {
                operation,
                exception,
                reasons,
                entity: "",
                partition: String::new(),
                source: Box::new(source),
            };
        }
        if let aws_sdk_dynamodb::Error::ReplicatedWriteConflictException(_) = &source {
            return Error::ReplicatedWriteConflict {
                operation,
                entity: "",
                key: String::new(),
                source: Box::new(source),
            };
        }
        Error::Sdk { operation, source: Box::new(source) }
    }

    /// [`Error::sdk`], but [`Error::Unsupported`] when the engine does not know `operation`
    /// (`UnknownOperationException`, DynamoDB Local's answer to an operation it lacks).
    pub(crate) fn sdk_or_unsupported<E>(operation: &'static str, err: E) -> Error
    where
        aws_sdk_dynamodb::Error: From<E>,
    {
        use aws_sdk_dynamodb::error::ProvideErrorMetadata;
        let source = aws_sdk_dynamodb::Error::from(err);
        if source.code() == Some("UnknownOperationException") {
            return Error::Unsupported { operation, source: Box::new(source) };
        }
        Error::sdk::<aws_sdk_dynamodb::Error>(operation, source)
    }

    /// Names the item a failed single-item request was about: its entity type, its key
    /// (`names.show_key`) and partition (`PK=…`), on [`Error::Throttled`] and
    /// [`Error::ReplicatedWriteConflict`]; other errors are returned as they are.
    pub(crate) fn on_item(self, entity: &'static str, names: &crate::AttributeNames, key: &crate::PrimaryKey) -> Error {
        match self {
            Error::Throttled { operation, exception, reasons, source, .. } => Error::Throttled {
                operation,
                exception,
                reasons,
                entity,
                partition: names.show_partition(&key.pk),
                source,
            },
            Error::ReplicatedWriteConflict { operation, source, .. } => {
                Error::ReplicatedWriteConflict { operation, entity, key: names.show_key(key), source }
            }
            other => other,
        }
    }

    /// As [`Error::on_item`] with the key as text (`PK=… SK=…`) and the partition as text
    /// (`PK=…`, or a GSI's `GSI1PK=…` for a query).
    pub(crate) fn on_partition(self, entity: &'static str, key: &str, partition: &str) -> Error {
        match self {
            Error::Throttled { operation, exception, reasons, source, .. } => {
                Error::Throttled { operation, exception, reasons, entity, partition: partition.to_owned(), source }
            }
            Error::ReplicatedWriteConflict { operation, source, .. } => {
                Error::ReplicatedWriteConflict { operation, entity, key: key.to_owned(), source }
            }
            other => other,
        }
    }

    /// What identifies a write whose outcome is unknown ([`Error::OutcomeUnknown`]), for
    /// [`Table::resolve`](crate::Table::resolve); `None` for every other error.
    pub fn pending(&self) -> Option<&crate::write_token::Pending> {
        match self {
            Error::OutcomeUnknown { pending, .. } => Some(pending),
            _ => None,
        }
    }

    /// Whether sending the same request again may succeed: throttling
    /// ([`Error::Throttled`]), a replicated write conflict ([`Error::ReplicatedWriteConflict`]),
    /// newer writes that came first ([`Error::Contended`]),
    /// DynamoDB's server errors (`InternalServerError`, `ServiceUnavailable`), timeouts and
    /// connection failures. The batches retry these with their
    /// [`RetryPolicy`](crate::retry::RetryPolicy); nothing else is retried.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Throttled { .. } | Error::ReplicatedWriteConflict { .. } | Error::Contended { .. } => true,
            Error::Sdk { source, .. } => service::retryable(source),
            _ => false,
        }
    }
}

/// Who holds a migration step taken over, as [`Error::MigrationTakenOver`] says it.
fn holder_text(holder: Option<&str>, recorded: Option<&str>) -> String {
    match (holder, recorded) {
        (Some(h), Some(r)) => format!("{h} (its record says {r} by {h})"),
        (Some(h), None) => h.to_owned(),
        (None, _) => "nobody: its record is gone".to_owned(),
    }
}

/// `: PK=… SK=… (why); …` for the first ten of an [`Error::ItemsFailed`]'s failures, and how
/// many more there are.
fn failure_list(failures: &[(String, String)], failed: u64) -> String {
    const SHOWN: usize = 10;
    let mut text = String::new();
    for (i, (key, why)) in failures.iter().take(SHOWN).enumerate() {
        text.push_str(if i == 0 { ": " } else { "; " });
        text.push_str(&format!("{key} ({why})"));
    }
    let more = failed.saturating_sub(failures.len().min(SHOWN) as u64);
    if more > 0 && !text.is_empty() {
        text.push_str(&format!("; and {more} more"));
    }
    text
}

/// `a`, `b`: each name in backquotes, joined by commas.
fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// The attributes of an [`Error::StoredTypeMismatch`], as its message names them.
fn operand_attributes(attributes: &[&str]) -> String {
    match attributes {
        [] => "an attribute the update computes from is".to_owned(),
        [one] => format!("attribute `{one}` is"),
        many => format!("one of the attributes `{}` is", many.join("`, `")),
    }
}

fn library_share(library: usize, limit: crate::limits::Limit) -> String {
    if library == 0 {
        return String::new();
    }
    format!(
        ", of which the library's own guards (entity type, ranges of add/subtract, version, write history) account for {library} {}",
        limit.unit()
    )
}

impl crate::limits::Exceeded {
    /// The error of `operation` on the item `key` of `entity`.
    pub(crate) fn request(self, operation: &'static str, entity: &'static str, key: String) -> Error {
        Error::LimitExceeded {
            limit: self.limit,
            part: self.part,
            measured: self.measured,
            max: self.limit.max(),
            library: self.library,
            operation,
            entity,
            key,
        }
    }
}

/// `Result<T, dynamo_entity::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What an item's type attribute holds, for [`Error::WrongEntity`]: a string as it is, a number
/// as `the number 1` (not to be taken for a type value), any other value by its type (`a value
/// of type NULL`).
pub(crate) fn type_value_text(v: &aws_sdk_dynamodb::types::AttributeValue) -> String {
    match v {
        aws_sdk_dynamodb::types::AttributeValue::N(n) => format!("the number {n}"),
        other => crate::key::names::describe_value(other),
    }
}
