//! [`Table`]: the operations on one DynamoDB table.

pub mod render;

use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemFluentBuilder;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, ConsumedCapacity, GlobalSecondaryIndex, KeySchemaElement,
    KeyType as SdkKeyType, LocalSecondaryIndex, ReturnConsumedCapacity,
    ReturnValuesOnConditionCheckFailure, TimeToLiveSpecification,
};

use crate::capacity::{Capacity, CapacityMeter};
use crate::schema::TableLayout;
use crate::schema::{AttributeNames, EntitySchema, Index, PrimaryKey};
#[cfg(doc)]
use crate::schema::Entity;
use crate::error::Error;

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

pub(crate) const RETURN_OLD_ON_FAILURE: ReturnValuesOnConditionCheckFailure =
    ReturnValuesOnConditionCheckFailure::AllOld;
