//! [`Table`]: the operations on one DynamoDB table.

use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemFluentBuilder;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemFluentBuilder;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ConsumedCapacity, GlobalSecondaryIndex, KeySchemaElement,
    KeyType as SdkKeyType, LocalSecondaryIndex, ReturnConsumedCapacity, ReturnValue,
    ReturnValuesOnConditionCheckFailure, TimeToLiveSpecification,
};

use crate::capacity::{Capacity, CapacityMeter};
use crate::collection::CollectionRequest;
use crate::design::TableLayout;
use crate::entity::{AttributeNames, Entity, EntitySchema, Index, Item, Key, PrimaryKey, VersionSchema};
use crate::error::Error;
use crate::expr::Placeholders;
use crate::query::{QueryRequest, QuerySpec};
use crate::update::UpdateRequest;
use crate::versioning::{self, Stamped, Writable};

/// One DynamoDB table holding any number of entity types (single-table design).
///
/// Cheap to clone: one reference count (the SDK client, the name and the capacity meter are shared).
///
/// ```no_run
/// # async fn f(client: aws_sdk_dynamodb::Client) {
/// let table = dynamo_entity::Table::new(client, "skill-exchange");
/// # }
/// ```
#[derive(Clone)]
pub struct Table {
    // One reference count for the whole handle: every request builder (`update`, `query`, ...)
    // clones it.
    inner: Arc<TableInner>,
}

/// What a [`Table`] handle shares with its clones.
struct TableInner {
    client: Client,
    name: Arc<str>,
    meter: Arc<CapacityMeter>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("client", &self.inner.client)
            .field("name", &self.inner.name)
            .field("meter", &self.inner.meter)
            .finish()
    }
}

impl Table {
    /// A handle on table `name` through `client`. Nothing is sent.
    pub fn new(client: Client, name: impl Into<String>) -> Table {
        Table { inner: Arc::new(TableInner { client, name: Arc::from(name.into()), meter: Arc::default() }) }
    }

    /// The capacity consumed by every operation sent through this handle and the handles
    /// cloned from it (or made by [`Table::metered`] from them), per table and per GSI, as
    /// DynamoDB reported it (`ReturnConsumedCapacity = INDEXES`, asked for by every
    /// operation). Failed requests report nothing. See [`capacity`](crate::capacity).
    pub fn consumed(&self) -> Capacity {
        self.inner.meter.consumed()
    }

    /// The meter behind [`Table::consumed`]; [`CapacityMeter::take`] reads and resets it.
    pub fn meter(&self) -> &CapacityMeter {
        &self.inner.meter
    }

    /// A handle on the same table with a fresh meter, which also adds to this handle's meter:
    /// the way to read what one operation (or one unit of work) consumed, even while other
    /// tasks use the table.
    ///
    /// ```no_run
    /// # async fn f<E: dynamo_entity::Entity>(table: dynamo_entity::Table, value: E) -> dynamo_entity::Result<()> {
    /// let op = table.metered();
    /// op.put(&value).await?;
    /// println!("the put consumed {}", op.consumed()); // such as `2 WCU (table 1 WCU, GSI1 1 WCU)`
    /// # Ok(())
    /// # }
    /// ```
    pub fn metered(&self) -> Table {
        Table {
            inner: Arc::new(TableInner {
                client: self.inner.client.clone(),
                name: Arc::clone(&self.inner.name),
                meter: Arc::new(CapacityMeter::child(Arc::clone(&self.inner.meter))),
            }),
        }
    }

    /// Records the capacity DynamoDB reported for one response of a read (`write == false`) or
    /// write operation, and returns it.
    pub(crate) fn record(&self, consumed: &[ConsumedCapacity], write: bool) -> Capacity {
        let capacity = Capacity::from_consumed(consumed, write);
        self.inner.meter.record(&capacity);
        capacity
    }

    /// As [`Table::record`], for a response with one entry.
    pub(crate) fn record_one(&self, consumed: Option<&ConsumedCapacity>, write: bool) -> Capacity {
        self.record(consumed.map(std::slice::from_ref).unwrap_or_default(), write)
    }

    /// The SDK client.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The table name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Reads one item by primary key (`GetItem`, eventually consistent; see
    /// [`Table::get_consistent`]). `Ok(None)` when there is no such item.
    ///
    /// # Errors
    /// The key's encoding error before sending; [`Error::Sdk`]; [`Error::WrongEntity`] when the
    /// item under that key is of another entity type; [`Error::Decode`].
    pub async fn get<E: Entity>(&self, key: Key<E>) -> Result<Option<E>, Error> {
        self.get_with(key, false).await
    }

    /// As [`Table::get`], strongly consistent (twice the read capacity).
    ///
    /// # Errors
    /// As [`Table::get`].
    pub async fn get_consistent<E: Entity>(&self, key: Key<E>) -> Result<Option<E>, Error> {
        self.get_with(key, true).await
    }

    async fn get_with<E: Entity>(&self, key: Key<E>, consistent: bool) -> Result<Option<E>, Error> {
        let key = key.into_encoded()?;
        let resp = self.get_request(E::NAMES, &key, consistent).send().await.map_err(|e| Error::sdk("GetItem", e))?;
        self.record_one(resp.consumed_capacity.as_ref(), false);
        resp.item.map(|item| E::from_item(&item)).transpose()
    }

    /// The `GetItem` of [`Table::get`] / [`Table::get_consistent`].
    pub(crate) fn get_request(
        &self,
        names: &AttributeNames,
        key: &PrimaryKey,
        consistent: bool,
    ) -> GetItemFluentBuilder {
        self.inner
            .client
            .get_item()
            .table_name(&*self.inner.name)
            .set_key(Some(names.key_item(key)))
            .consistent_read(consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// Writes `value` (`&E`, or `&mut E`: see [`Writable`]), replacing any item with the same
    /// primary key (`PutItem`).
    ///
    /// # Errors
    /// [`Error::Key`] / [`Error::Encode`] before sending; [`Error::Sdk`] (an item over
    /// DynamoDB's 400 KB limit is rejected by DynamoDB as a `ValidationException`).
    ///
    /// An entity with unique fields is read first and written in a transaction that moves the
    /// guards of changed values ([`unique`](crate::unique)); a value that belongs to another
    /// item is [`Error::UniqueViolation`].
    ///
    /// A versioned entity (`#[entity(version)]`) is written only if the stored version is the
    /// value's (for version 0: no item, or one without a version), and stored with the next
    /// version; otherwise [`Error::VersionConflict`] and nothing is written. `updated_at` is set
    /// to now, `created_at` is stored as the value holds it. See
    /// [`versioning`].
    pub async fn put<V: Writable>(&self, mut value: V) -> Result<(), Error> {
        let schema = V::Entity::schema();
        let w = versioning::stamp(value.value(), false)?;
        if schema.has_unique() {
            crate::unique::put::<V::Entity>(self, &w, false).await?;
            return value.stored(&w.item);
        }
        let Stamped { key, item, expected } = w;
        let stored = value.wants_stored().then(|| item.clone());
        match self.put_request::<V::Entity>(item, expected).send().await {
            Ok(resp) => {
                self.record_one(resp.consumed_capacity.as_ref(), true);
                stored.map_or(Ok(()), |item| value.stored(&item))
            }
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                let old = failed_put_item(e.err());
                if let Some(other) = old.and_then(|o| other_entity(o, V::Entity::NAMES, V::Entity::TYPE)) {
                    return Err(Error::WrongEntity {
                        expected: V::Entity::TYPE,
                        found: other,
                        key: V::Entity::NAMES.show_key(&key),
                    });
                }
                // Otherwise the stored version is not the value's.
                Err(versioning::lost(schema, &key, expected.unwrap_or_default(), old))
            }
            Err(e) => Err(Error::sdk("PutItem", e)),
        }
    }

    /// The `PutItem` of [`Table::put`] of a stamped item of `E` (no unique fields).
    pub(crate) fn put_request<E: Entity>(&self, item: Item, expected: Option<u64>) -> PutItemFluentBuilder {
        // Never overwrite an item of another entity type that happens to have this key.
        let mut ph = Placeholders::default();
        // `(attribute_not_exists(#n0) OR #n1 = :v0)`, the placeholders written in place.
        let mut condition = String::with_capacity(48);
        condition.push_str("(attribute_not_exists(");
        ph.push_name(E::NAMES.pk, &mut condition);
        condition.push_str(") OR ");
        ph.push_type_is(E::NAMES, E::TYPE, &mut condition);
        condition.push(')');
        if let (Some(version), Some(expected)) = (&E::schema().version, expected) {
            let v = versioning::version_condition(version, expected, &mut ph);
            condition = format!("{condition} AND ({v})");
        }
        self.inner
            .client
            .put_item()
            .table_name(&*self.inner.name)
            .set_item(Some(item))
            .condition_expression(condition)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .return_values_on_condition_check_failure(RETURN_OLD_ON_FAILURE)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// Writes `value` only if no item has its primary key (`PutItem` with
    /// `attribute_not_exists(PK)`): the idempotent-write pattern. A retry of the same write
    /// gets [`Error::AlreadyExists`] and changes nothing.
    ///
    /// # Errors
    /// [`Error::AlreadyExists`]; otherwise as [`Table::put`].
    ///
    /// An entity with unique fields is written in one transaction with a guard item per unique
    /// value ([`unique`](crate::unique)); a value that belongs to another item is
    /// [`Error::UniqueViolation`].
    ///
    /// A versioned entity is stored with version 1, whatever `value` holds; `created_at` and
    /// `updated_at` are set to now. With `&mut E`, `value` gets them (see [`Writable`] and
    /// [`versioning`]).
    pub async fn create<V: Writable>(&self, mut value: V) -> Result<(), Error> {
        let w = versioning::stamp(value.value(), true)?;
        if V::Entity::schema().has_unique() {
            crate::unique::create::<V::Entity>(self, &w).await?;
            return value.stored(&w.item);
        }
        let Stamped { key, item, .. } = w;
        let stored = value.wants_stored().then(|| item.clone());
        match self.create_request(V::Entity::NAMES, item).send().await {
            Ok(resp) => {
                self.record_one(resp.consumed_capacity.as_ref(), true);
                stored.map_or(Ok(()), |item| value.stored(&item))
            }
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                Err(Error::AlreadyExists { entity: V::Entity::TYPE, key: V::Entity::NAMES.show_key(&key) })
            }
            Err(e) => Err(Error::sdk("PutItem", e)),
        }
    }

    /// The `PutItem` of [`Table::create`] of a stamped item (no unique fields).
    pub(crate) fn create_request(&self, names: &AttributeNames, item: Item) -> PutItemFluentBuilder {
        self.inner
            .client
            .put_item()
            .table_name(&*self.inner.name)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", names.pk)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// Deletes the item with this key (`DeleteItem`) and returns it as it was, `None` when there
    /// was none. Returning the old item costs no extra capacity.
    ///
    /// # Errors
    /// The key's encoding error before sending; [`Error::Sdk`]; [`Error::WrongEntity`] /
    /// [`Error::Decode`] when the deleted item does not decode as `E` (it is deleted all the
    /// same).
    ///
    /// An entity with unique fields is read first and deleted in one transaction with its
    /// guard items ([`unique`](crate::unique)).
    pub async fn delete<E: Entity>(&self, key: Key<E>) -> Result<Option<E>, Error> {
        let key = key.into_encoded()?;
        if E::schema().has_unique() {
            return crate::unique::delete(self, key, None).await;
        }
        match self.delete_request::<E>(&key).send().await {
            Ok(resp) => {
                self.record_one(resp.consumed_capacity.as_ref(), true);
                resp.attributes.map(|item| E::from_item(&item)).transpose()
            }
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                let found = match e.err() {
                    DeleteItemError::ConditionalCheckFailedException(c) => {
                        c.item().and_then(|o| other_entity(o, E::NAMES, E::TYPE)).flatten()
                    }
                    _ => None,
                };
                Err(Error::WrongEntity { expected: E::TYPE, found, key: E::NAMES.show_key(&key) })
            }
            Err(e) => Err(Error::sdk("DeleteItem", e)),
        }
    }

    /// The `DeleteItem` of [`Table::delete`] (no unique fields).
    pub(crate) fn delete_request<E: Entity>(&self, key: &PrimaryKey) -> DeleteItemFluentBuilder {
        // Never delete an item of another entity type that happens to have this key.
        self.inner
            .client
            .delete_item()
            .table_name(&*self.inner.name)
            .set_key(Some(E::NAMES.key_item(key)))
            .condition_expression("attribute_not_exists(#pk) OR #ty = :ty")
            .expression_attribute_names("#pk", E::NAMES.pk)
            .expression_attribute_names("#ty", E::NAMES.entity_type)
            .expression_attribute_values(":ty", AttributeValue::S(E::TYPE.to_owned()))
            .return_values(ReturnValue::AllOld)
            .return_values_on_condition_check_failure(RETURN_OLD_ON_FAILURE)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// Deletes the item with this key only if its stored version (`#[entity(version)]`) is
    /// `version`, the version it was read with (`DeleteItem` conditional on `version = :v`; for
    /// 0, on an item without a version), and returns it as it was. [`Table::delete`] deletes
    /// whatever the version. See [`versioning`].
    ///
    /// # Errors
    /// [`Error::Invalid`] before sending for an entity without a version field;
    /// [`Error::NotFound`] when there is no item; [`Error::VersionConflict`] when the stored
    /// version differs (nothing is deleted); otherwise as [`Table::delete`].
    pub async fn delete_if_version<E: Entity>(&self, key: Key<E>, version: u64) -> Result<E, Error> {
        let key = key.into_encoded()?;
        let schema = E::schema();
        let Some(v) = &schema.version else {
            return Err(Error::Invalid {
                reason: format!(
                    "{} has no `#[entity(version)]` field, so a delete of it cannot check a version",
                    E::TYPE
                ),
            });
        };
        let not_found = || Error::NotFound { entity: E::TYPE, key: E::NAMES.show_key(&key) };
        if schema.has_unique() {
            return crate::unique::delete(self, key.clone(), Some(version)).await?.ok_or_else(not_found);
        }
        match self.delete_version_request(E::NAMES, &key, v, version).send().await {
            Ok(resp) => {
                self.record_one(resp.consumed_capacity.as_ref(), true);
                E::from_item(&resp.attributes.unwrap_or_default())
            }
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                let stored = match e.err() {
                    DeleteItemError::ConditionalCheckFailedException(c) => c.item().filter(|i| !i.is_empty()),
                    _ => None,
                };
                match stored {
                    Some(old) => Err(versioning::lost(schema, &key, version, Some(old))),
                    None => Err(not_found()),
                }
            }
            Err(e) => Err(Error::sdk("DeleteItem", e)),
        }
    }

    /// The `DeleteItem` of [`Table::delete_if_version`] (no unique fields).
    pub(crate) fn delete_version_request(
        &self,
        names: &AttributeNames,
        key: &PrimaryKey,
        v: &VersionSchema,
        version: u64,
    ) -> DeleteItemFluentBuilder {
        let mut ph = Placeholders::default();
        let condition = format!(
            "attribute_exists({}) AND {}",
            ph.name(names.pk),
            versioning::version_condition(v, version, &mut ph)
        );
        self.inner
            .client
            .delete_item()
            .table_name(&*self.inner.name)
            .set_key(Some(names.key_item(key)))
            .condition_expression(condition)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .return_values(ReturnValue::AllOld)
            .return_values_on_condition_check_failure(RETURN_OLD_ON_FAILURE)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// Writes `value` only if an item with its primary key exists (`PutItem` with
    /// `attribute_exists(PK)`), and returns that item as it was (`ReturnValues = ALL_OLD`, no
    /// extra capacity).
    ///
    /// # Errors
    /// [`Error::NotFound`] when there is no such item; [`Error::WrongEntity`] / [`Error::Decode`]
    /// when the replaced item was not a valid `E` (it is replaced all the same); otherwise as
    /// [`Table::put`].
    ///
    /// An entity with unique fields is read first and written in a transaction that moves the
    /// guards of changed values ([`unique`](crate::unique)).
    ///
    /// A versioned entity is written only if the stored version is the value's, with the next
    /// version, as by [`Table::put`]; otherwise [`Error::VersionConflict`] (an item that does
    /// not exist is [`Error::NotFound`]).
    pub async fn replace<V: Writable>(&self, mut value: V) -> Result<V::Entity, Error> {
        let schema = V::Entity::schema();
        let w = versioning::stamp(value.value(), false)?;
        if schema.has_unique() {
            let old = crate::unique::put::<V::Entity>(self, &w, true).await?;
            value.stored(&w.item)?;
            return V::Entity::from_item(&old.unwrap_or_default());
        }
        let Stamped { key, item, expected } = w;
        let stored = value.wants_stored().then(|| item.clone());
        match self.replace_request::<V::Entity>(item, expected).send().await {
            Ok(resp) => {
                self.record_one(resp.consumed_capacity.as_ref(), true);
                if let Some(item) = stored {
                    value.stored(&item)?;
                }
                V::Entity::from_item(&resp.attributes.unwrap_or_default())
            }
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                match (failed_put_item(e.err()), expected) {
                    (Some(old), Some(expected)) => Err(versioning::lost(schema, &key, expected, Some(old))),
                    _ => Err(Error::NotFound { entity: V::Entity::TYPE, key: V::Entity::NAMES.show_key(&key) }),
                }
            }
            Err(e) => Err(Error::sdk("PutItem", e)),
        }
    }

    /// The `PutItem` of [`Table::replace`] of a stamped item of `E` (no unique fields).
    pub(crate) fn replace_request<E: Entity>(&self, item: Item, expected: Option<u64>) -> PutItemFluentBuilder {
        let mut ph = Placeholders::default();
        let pk = ph.name(E::NAMES.pk);
        let condition = match (&E::schema().version, expected) {
            (Some(version), Some(expected)) => {
                format!("attribute_exists({pk}) AND {}", versioning::version_condition(version, expected, &mut ph))
            }
            _ => format!("attribute_exists({pk})"),
        };
        self.inner
            .client
            .put_item()
            .table_name(&*self.inner.name)
            .set_item(Some(item))
            .condition_expression(condition)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .return_values(ReturnValue::AllOld)
            .return_values_on_condition_check_failure(RETURN_OLD_ON_FAILURE)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// An update of the item with this key (`UpdateItem`); see [`UpdateRequest`].
    pub fn update<E: Entity>(&self, key: Key<E>) -> UpdateRequest<E> {
        UpdateRequest::new(self.clone(), key)
    }

    /// A query of one partition of one index, from the generated `E::query(...)` or
    /// `E::gsiN(...)`; see [`QueryRequest`].
    pub fn query<E: Entity, S>(&self, spec: QuerySpec<E, S>) -> QueryRequest<E, S> {
        QueryRequest::new(self.clone(), spec)
    }

    /// A query of a whole partition (an item collection), every entity type included, from the
    /// same `E::query(...)` / `E::gsiN(...)` that selects the partition; see
    /// [`Collection`](crate::collection::Collection).
    pub fn collection<E: Entity, S>(&self, spec: QuerySpec<E, S>) -> CollectionRequest {
        CollectionRequest::new(self.clone(), spec)
    }

    /// A batch of puts and deletes of any entity types and any number of items, sent as
    /// `BatchWriteItem` requests of at most 25 writes, with unprocessed items retried; see
    /// [`BatchWrite`](crate::batch::BatchWrite) and the [`batch`](crate::batch) module.
    pub fn batch_write(&self) -> crate::batch::BatchWrite {
        crate::batch::BatchWrite::new(self.clone())
    }

    /// Puts every value with [`Table::batch_write`] and the default settings.
    ///
    /// # Errors
    /// As [`BatchWrite::send`](crate::batch::BatchWrite::send).
    pub async fn batch_put<E: Entity>(&self, values: &[E]) -> Result<crate::batch::BatchWriteOutcome, Error> {
        self.batch_write().put_all(values).send().await
    }

    /// Reads the items of these keys of one entity type, as `BatchGetItem` requests of at most
    /// 100 keys, with unprocessed keys retried; the items come back in the order of the keys.
    /// See [`BatchGet`](crate::batch::BatchGet).
    pub fn batch_get<E: Entity>(&self, keys: impl IntoIterator<Item = Key<E>>) -> crate::batch::BatchGet<E> {
        crate::batch::BatchGet::new(self.clone(), keys)
    }

    /// A batch get of keys of any entity types, returning raw items in the order of the keys;
    /// see [`BatchGetMixed`](crate::batch::BatchGetMixed).
    pub fn batch_get_mixed(&self) -> crate::batch::BatchGetMixed {
        crate::batch::BatchGetMixed::new(self.clone())
    }

    /// Creates this table for the given entities: `PK` / `SK`, every GSI any of them uses
    /// (`GSI<n>` on `GSI<n>PK` / `GSI<n>SK`, projection ALL), the inverted index
    /// [`INVERTED`](Index::Inverted) on `SK` / `PK` when an entity is `#[entity(inverted)]`,
    /// every LSI any of them uses (`LSI<n>` on `PK` / `LSI<n>SK`, projection ALL; an LSI can
    /// only be created with its table), on-demand billing. Each key
    /// attribute's type (`S` or `N`) comes from the entities' templates. Returns when the table
    /// is `ACTIVE`.
    ///
    /// The names above are the defaults; entities that say `#[entity(table = AppTable)]` are
    /// created under their table's names ([`Entity::NAMES`]), since their items and queries use
    /// them. The declared projections and indexes no entity writes come only with
    /// [`create_table_from`](Self::create_table_from) and `AppTable::layout()`.
    ///
    /// When an entity has an `#[entity(ttl)]` field, time to live is then enabled on its
    /// attribute (`UpdateTimeToLive`; see [`versioning`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] when two entities disagree on a key attribute's type (one stores
    /// `GSI1SK` as a number, another as a string) or the primary key is numeric in one and a
    /// string in another, or when they declare different TTL attributes (a table has one), or
    /// different attribute names (entities of different `#[entity(table = ...)]`);
    /// [`Error::Sdk`] (for example when the table exists).
    pub async fn create_table(&self, entities: &[&'static EntitySchema]) -> Result<(), Error> {
        self.create_table_from(&TableLayout::new(entities)?).await
    }

    /// Creates this table from a layout, such as the one of a `#[derive(Table)]` declaration
    /// ([`TableDef::layout`](crate::TableDef::layout)): as [`Table::create_table`], with the
    /// layout's indexes, key types and projections ([`TableLayout::projection`]): the GSIs in
    /// `GlobalSecondaryIndexes`, the LSIs ([`Index::Lsi`]) in `LocalSecondaryIndexes`.
    ///
    /// # Errors
    /// [`Error::Sdk`] (for example when the table exists, or an `INCLUDE` projection names a
    /// key attribute).
    pub async fn create_table_from(&self, layout: &TableLayout) -> Result<(), Error> {
        let ttl = layout.ttl();
        let ty = |attr: &str| layout.key_type(attr);
        let mut defs = Vec::new();
        let mut define = |attr: &str| -> Result<(), Error> {
            defs.push(
                AttributeDefinition::builder()
                    .attribute_name(attr)
                    .attribute_type(ty(attr).scalar())
                    .build()
                    .map_err(|e| Error::Invalid { reason: e.to_string() })?,
            );
            Ok(())
        };
        let names = layout.names();
        define(names.pk)?;
        define(names.sk)?;
        let element = |name: &str, kt: SdkKeyType| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(kt)
                .build()
                .map_err(|e| Error::Invalid { reason: e.to_string() })
        };
        let mut indexes = Vec::new();
        let mut locals = Vec::new();
        for index in layout.indexes() {
            if index.is_local() {
                // Keyed on the table's `PK`, defined above, and its own sort key.
                define(names.sk_of(index))?;
                locals.push(
                    LocalSecondaryIndex::builder()
                        .index_name(names.index_name(index).unwrap_or_default())
                        .key_schema(element(names.pk, SdkKeyType::Hash)?)
                        .key_schema(element(names.sk_of(index), SdkKeyType::Range)?)
                        .projection(layout.projection(index).to_sdk())
                        .build()
                        .map_err(|e| Error::Invalid { reason: e.to_string() })?,
                );
                continue;
            }
            // The inverted index is keyed on `SK` / `PK`, defined above.
            if index != Index::Inverted {
                define(names.pk_of(index))?;
                define(names.sk_of(index))?;
            }
            indexes.push(
                GlobalSecondaryIndex::builder()
                    .index_name(names.index_name(index).unwrap_or_default())
                    .key_schema(element(names.pk_of(index), SdkKeyType::Hash)?)
                    .key_schema(element(names.sk_of(index), SdkKeyType::Range)?)
                    .projection(layout.projection(index).to_sdk())
                    .build()
                    .map_err(|e| Error::Invalid { reason: e.to_string() })?,
            );
        }
        self.inner
            .client
            .create_table()
            .table_name(&*self.inner.name)
            .set_attribute_definitions(Some(defs))
            .key_schema(element(names.pk, SdkKeyType::Hash)?)
            .key_schema(element(names.sk, SdkKeyType::Range)?)
            .set_global_secondary_indexes((!indexes.is_empty()).then_some(indexes))
            .set_local_secondary_indexes((!locals.is_empty()).then_some(locals))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await
            .map_err(|e| Error::sdk("CreateTable", e))?;
        self.wait_active().await?;
        if let Some(attribute) = ttl {
            self.enable_ttl(attribute).await?;
        }
        Ok(())
    }

    /// Enables DynamoDB's time to live on `attribute` (`UpdateTimeToLive`): items whose
    /// `attribute` is a number of seconds since the Unix epoch in the past are deleted by
    /// DynamoDB, typically within a few days. A table has one TTL attribute; the change may take
    /// up to an hour to take effect, and DynamoDB refuses another TTL change meanwhile.
    /// [`Table::create_table`] calls it for an entity's `#[entity(ttl)]` field.
    ///
    /// # Errors
    /// [`Error::Sdk`] (such as a `ValidationException` when TTL is already enabled on another
    /// attribute, or changed within the hour).
    pub async fn enable_ttl(&self, attribute: &str) -> Result<(), Error> {
        let spec = TimeToLiveSpecification::builder()
            .enabled(true)
            .attribute_name(attribute)
            .build()
            .map_err(|e| Error::Invalid { reason: e.to_string() })?;
        self.inner
            .client
            .update_time_to_live()
            .table_name(&*self.inner.name)
            .time_to_live_specification(spec)
            .send()
            .await
            .map_err(|e| Error::sdk("UpdateTimeToLive", e))?;
        Ok(())
    }

    async fn wait_active(&self) -> Result<(), Error> {
        for _ in 0..600 {
            let resp = self
                .inner
                .client
                .describe_table()
                .table_name(&*self.inner.name)
                .send()
                .await
                .map_err(|e| Error::sdk("DescribeTable", e))?;
            let table = resp.table;
            let active =
                table.as_ref().and_then(|t| t.table_status()) == Some(&aws_sdk_dynamodb::types::TableStatus::Active);
            let gsis_active = table
                .as_ref()
                .map(|t| {
                    t.global_secondary_indexes()
                        .iter()
                        .all(|g| g.index_status() == Some(&aws_sdk_dynamodb::types::IndexStatus::Active))
                })
                .unwrap_or(true);
            if active && gsis_active {
                return Ok(());
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        Err(Error::Invalid { reason: format!("table {} did not become ACTIVE within 60 s", self.inner.name) })
    }

    /// Deletes the table (`DeleteTable`).
    ///
    /// # Errors
    /// [`Error::Sdk`].
    pub async fn delete_table(&self) -> Result<(), Error> {
        self.inner
            .client
            .delete_table()
            .table_name(&*self.inner.name)
            .send()
            .await
            .map_err(|e| Error::sdk("DeleteTable", e))?;
        Ok(())
    }
}

/// The stored item that a `PutItem` with `ReturnValuesOnConditionCheckFailure = ALL_OLD` got
/// back with its failed condition; `None` when there is no item.
/// The entity type of `item` when it is not `entity`: `Some(Some(name))`, or `Some(None)` for
/// an item without a string type attribute; `None` when it is `entity`.
fn other_entity(item: &Item, names: &AttributeNames, entity: &str) -> Option<Option<String>> {
    match item.get(names.entity_type) {
        Some(AttributeValue::S(t)) if t == entity => None,
        other => Some(other.map(crate::entity::describe_value)),
    }
}

fn failed_put_item(e: &PutItemError) -> Option<&Item> {
    match e {
        PutItemError::ConditionalCheckFailedException(c) => c.item().filter(|i| !i.is_empty()),
        _ => None,
    }
}

pub(crate) const RETURN_OLD_ON_FAILURE: ReturnValuesOnConditionCheckFailure =
    ReturnValuesOnConditionCheckFailure::AllOld;
