//! [`Table`]: the operations on one DynamoDB table.

use std::collections::BTreeMap;
use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType as SdkKeyType, Projection,
    ProjectionType, ReturnValue, ReturnValuesOnConditionCheckFailure,
};

use crate::collection::CollectionRequest;
use crate::entity::{Entity, EntitySchema, Index, Key, PK, SK};
use crate::error::Error;
use crate::key::KeyType;
use crate::query::{QueryRequest, QuerySpec};
use crate::update::UpdateRequest;

/// One DynamoDB table holding any number of entity types (single-table design).
///
/// Cheap to clone: the SDK client is reference-counted.
///
/// ```no_run
/// # async fn f(client: aws_sdk_dynamodb::Client) {
/// let table = dynamo_entity::Table::new(client, "skill-exchange");
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Table {
    client: Client,
    name: Arc<str>,
}

impl Table {
    /// A handle on table `name` through `client`. Nothing is sent.
    pub fn new(client: Client, name: impl Into<String>) -> Table {
        Table { client, name: Arc::from(name.into()) }
    }

    /// The SDK client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The table name.
    pub fn name(&self) -> &str {
        &self.name
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
        let resp = self
            .client
            .get_item()
            .table_name(&*self.name)
            .set_key(Some(key.to_item()))
            .consistent_read(consistent)
            .send()
            .await
            .map_err(|e| Error::sdk("GetItem", e))?;
        resp.item.map(|item| E::from_item(&item)).transpose()
    }

    /// Writes `value`, replacing any item with the same primary key (`PutItem`).
    ///
    /// # Errors
    /// [`Error::Key`] / [`Error::Encode`] before sending; [`Error::Sdk`] (an item over
    /// DynamoDB's 400 KB limit is rejected by DynamoDB as a `ValidationException`).
    ///
    /// An entity with unique fields is read first and written in a transaction that moves the
    /// guards of changed values ([`unique`](crate::unique)); a value that belongs to another
    /// item is [`Error::UniqueViolation`].
    pub async fn put<E: Entity>(&self, value: &E) -> Result<(), Error> {
        if E::schema().has_unique() {
            return crate::unique::put(self, value, false).await.map(drop);
        }
        let item = value.to_item()?;
        self.client
            .put_item()
            .table_name(&*self.name)
            .set_item(Some(item))
            .send()
            .await
            .map_err(|e| Error::sdk("PutItem", e))?;
        Ok(())
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
    pub async fn create<E: Entity>(&self, value: &E) -> Result<(), Error> {
        if E::schema().has_unique() {
            return crate::unique::create(self, value).await;
        }
        let item = value.to_item()?;
        let result = self
            .client
            .put_item()
            .table_name(&*self.name)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", PK)
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                Err(Error::AlreadyExists { entity: E::TYPE, key: value.primary_key()?.to_string() })
            }
            Err(e) => Err(Error::sdk("PutItem", e)),
        }
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
            return crate::unique::delete(self, key).await;
        }
        let resp = self
            .client
            .delete_item()
            .table_name(&*self.name)
            .set_key(Some(key.to_item()))
            .return_values(ReturnValue::AllOld)
            .send()
            .await
            .map_err(|e| Error::sdk("DeleteItem", e))?;
        resp.attributes.map(|item| E::from_item(&item)).transpose()
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
    pub async fn replace<E: Entity>(&self, value: &E) -> Result<E, Error> {
        if E::schema().has_unique() {
            let old = crate::unique::put(self, value, true).await?;
            return E::from_item(&old.unwrap_or_default());
        }
        let item = value.to_item()?;
        let result = self
            .client
            .put_item()
            .table_name(&*self.name)
            .set_item(Some(item))
            .condition_expression("attribute_exists(#pk)")
            .expression_attribute_names("#pk", PK)
            .return_values(ReturnValue::AllOld)
            .send()
            .await;
        match result {
            Ok(resp) => E::from_item(&resp.attributes.unwrap_or_default()),
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                Err(Error::NotFound { entity: E::TYPE, key: value.primary_key()?.to_string() })
            }
            Err(e) => Err(Error::sdk("PutItem", e)),
        }
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
    pub fn collection<E, S>(&self, spec: QuerySpec<E, S>) -> CollectionRequest {
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
    /// (`GSI<n>` on `GSI<n>PK` / `GSI<n>SK`, projection ALL), on-demand billing. Each key
    /// attribute's type (`S` or `N`) comes from the entities' templates. Returns when the table
    /// is `ACTIVE`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when two entities disagree on a key attribute's type (one stores
    /// `GSI1SK` as a number, another as a string) or the primary key is numeric in one and a
    /// string in another; [`Error::Sdk`] (for example when the table exists).
    pub async fn create_table(&self, entities: &[&EntitySchema]) -> Result<(), Error> {
        let mut types: BTreeMap<&'static str, (KeyType, &'static str)> = BTreeMap::new();
        let mut gsis: BTreeMap<u8, ()> = BTreeMap::new();
        for schema in entities {
            for (attr, ty) in schema.key_attributes() {
                match types.get(attr) {
                    Some((other, owner)) if *other != ty => {
                        return Err(Error::Invalid {
                            reason: format!(
                                "key attribute {attr} is {ty} in {} but {other} in {owner}; a table stores one type per key attribute",
                                schema.name
                            ),
                        });
                    }
                    _ => {
                        types.insert(attr, (ty, schema.name));
                    }
                }
            }
            for g in schema.gsis {
                if let Index::Gsi(n) = g.index {
                    gsis.insert(n, ());
                }
            }
        }
        let ty = |attr: &str| types.get(attr).map(|(t, _)| *t).unwrap_or(KeyType::S);
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
        define(PK)?;
        define(SK)?;
        let element = |name: &str, kt: SdkKeyType| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(kt)
                .build()
                .map_err(|e| Error::Invalid { reason: e.to_string() })
        };
        let mut indexes = Vec::new();
        for &n in gsis.keys() {
            let index = Index::Gsi(n);
            define(index.pk_attribute())?;
            define(index.sk_attribute())?;
            indexes.push(
                GlobalSecondaryIndex::builder()
                    .index_name(index.name().unwrap_or_default())
                    .key_schema(element(index.pk_attribute(), SdkKeyType::Hash)?)
                    .key_schema(element(index.sk_attribute(), SdkKeyType::Range)?)
                    .projection(Projection::builder().projection_type(ProjectionType::All).build())
                    .build()
                    .map_err(|e| Error::Invalid { reason: e.to_string() })?,
            );
        }
        self.client
            .create_table()
            .table_name(&*self.name)
            .set_attribute_definitions(Some(defs))
            .key_schema(element(PK, SdkKeyType::Hash)?)
            .key_schema(element(SK, SdkKeyType::Range)?)
            .set_global_secondary_indexes((!indexes.is_empty()).then_some(indexes))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await
            .map_err(|e| Error::sdk("CreateTable", e))?;
        self.wait_active().await
    }

    async fn wait_active(&self) -> Result<(), Error> {
        for _ in 0..600 {
            let resp = self
                .client
                .describe_table()
                .table_name(&*self.name)
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
        Err(Error::Invalid { reason: format!("table {} did not become ACTIVE within 60 s", self.name) })
    }

    /// Deletes the table (`DeleteTable`).
    ///
    /// # Errors
    /// [`Error::Sdk`].
    pub async fn delete_table(&self) -> Result<(), Error> {
        self.client.delete_table().table_name(&*self.name).send().await.map_err(|e| Error::sdk("DeleteTable", e))?;
        Ok(())
    }
}

pub(crate) const RETURN_OLD_ON_FAILURE: ReturnValuesOnConditionCheckFailure =
    ReturnValuesOnConditionCheckFailure::AllOld;
