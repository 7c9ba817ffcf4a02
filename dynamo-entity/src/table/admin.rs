//! Table administration: `CreateTable` from the entities or the table declaration,
//! `UpdateTimeToLive`, `DeleteTable`.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType as SdkKeyType,
    LocalSecondaryIndex, StreamSpecification, TimeToLiveSpecification,
};

use crate::error::Error;
#[cfg(doc)]
use crate::schema::Entity;
use crate::schema::{EntitySchema, Index, TableLayout};
use crate::table::{Call, Table};
#[cfg(doc)]
use crate::versioning;

impl<D> Table<D> {
    /// Creates this table for the given entities: `PK` / `SK`, every GSI any of them uses
    /// (`GSI<n>` on `GSI<n>PK` / `GSI<n>SK`, projection ALL; a multi-attribute GSI on its
    /// attributes, several `HASH` and `RANGE` elements), the inverted index
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

    /// Creates this table from a layout, such as the one of a `#[derive(TableDef)]` declaration
    /// ([`TableDef::layout`](crate::TableDef::layout)): as [`Table::create_table`], with the
    /// layout's indexes, key types and projections ([`TableLayout::projection`]): the GSIs in
    /// `GlobalSecondaryIndexes`, the LSIs ([`Index::Lsi`]) in `LocalSecondaryIndexes`, and
    /// the declared stream ([`TableLayout::stream`]) in `StreamSpecification` (its ARN is then
    /// [`Table::stream_arn`]), and the vector indexes ([`TableLayout::vector_indexes`]) in
    /// `VectorIndexes` (projection ALL), with their search schema attributes in
    /// `AttributeDefinitions`. On an engine without vector search (DynamoDB Local, which answers
    /// a `SearchVectors` with `UnknownOperationException`), the table is created without its
    /// vector indexes and their search attributes, with a `tracing` warning: the other tests of
    /// a suite run there, a search is [`Error::Unsupported`], and [`Table::diff`] reports the
    /// indexes missing. With vector indexes, it first sends that one `SearchVectors` to learn
    /// which engine it is.
    ///
    /// # Errors
    /// [`Error::Sdk`] (for example when the table exists, or an `INCLUDE` projection names a
    /// key attribute).
    pub async fn create_table_from(&self, layout: &TableLayout) -> Result<(), Error> {
        self.learn_layout(layout);
        let ttl = layout.ttl();
        let ty = |attr: &str| layout.key_type(attr);
        let mut defs = Vec::new();
        let mut define = |attr: &str| -> Result<(), Error> {
            if defs.iter().any(|d: &AttributeDefinition| d.attribute_name() == attr) {
                return Ok(());
            }
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
        // Multi-attribute GSIs: a HASH element per partition key attribute and a RANGE element
        // per sort key attribute, in declaration order (DynamoDB reads the order as the key's).
        for g in layout.multi_gsis() {
            let mut builder = GlobalSecondaryIndex::builder()
                .index_name(names.index_name(g.index).unwrap_or_default())
                .projection(layout.projection(g.index).to_sdk());
            for (attrs, kt) in [(g.pk, SdkKeyType::Hash), (g.sk, SdkKeyType::Range)] {
                for a in attrs {
                    define(a.attribute)?;
                    builder = builder.key_schema(element(a.attribute, kt.clone())?);
                }
            }
            indexes.push(builder.build().map_err(|e| Error::Invalid { reason: e.to_string() })?);
        }
        // Vector indexes: their search schema attributes are defined with their own types; the
        // vector attribute is not (DynamoDB refuses it in `AttributeDefinitions`).
        let mut vectors = Vec::new();
        let key_definitions = defs.len();
        for v in layout.vector_indexes() {
            for a in v.search_attributes() {
                if !defs.iter().any(|d: &AttributeDefinition| d.attribute_name() == a.attribute) {
                    defs.push(
                        AttributeDefinition::builder()
                            .attribute_name(a.attribute)
                            .attribute_type(a.key_type.scalar())
                            .build()
                            .map_err(|e| Error::Invalid { reason: e.to_string() })?,
                    );
                }
            }
            vectors.push(v.to_sdk()?);
        }
        // An engine without vector search (DynamoDB Local) drops `VectorIndexes` and then refuses
        // their search attributes in `AttributeDefinitions`: it gets the table without them.
        if !vectors.is_empty() && !self.has_vector_search().await? {
            tracing::warn!(
                table = %self.inner.name,
                "this engine has no vector search: the table is created without its vector indexes"
            );
            vectors.clear();
            defs.truncate(key_definitions);
        }
        let stream = match layout.stream_view_type() {
            Some(view) => Some(
                StreamSpecification::builder()
                    .stream_enabled(true)
                    .stream_view_type(view.to_sdk())
                    .build()
                    .map_err(|e| Error::Invalid { reason: e.to_string() })?,
            ),
            None => None,
        };
        self.execute(
            Call::new("CreateTable", ""),
            self.inner
                .client
                .create_table()
                .table_name(&*self.inner.name)
                .set_attribute_definitions(Some(defs))
                .key_schema(element(names.pk, SdkKeyType::Hash)?)
                .key_schema(element(names.sk, SdkKeyType::Range)?)
                .set_global_secondary_indexes((!indexes.is_empty()).then_some(indexes))
                .set_local_secondary_indexes((!locals.is_empty()).then_some(locals))
                .set_vector_indexes((!vectors.is_empty()).then_some(vectors))
                .billing_mode(BillingMode::PayPerRequest)
                .set_stream_specification(stream)
                .send(),
        )
        .await
        .map_err(|e| Error::sdk("CreateTable", e))?;
        self.wait_active().await?;
        if let Some(attribute) = ttl {
            self.enable_ttl(attribute).await?;
        }
        Ok(())
    }

    /// Whether the engine implements `SearchVectors`: a search of an index that does not exist
    /// is answered `UnknownOperationException` by an engine without it (DynamoDB Local), and a
    /// `ResourceNotFoundException` or `ValidationException` by DynamoDB and Dynoxide.
    async fn has_vector_search(&self) -> Result<bool, Error> {
        let probe = self
            .inner
            .client
            .search_vectors()
            .table_name(&*self.inner.name)
            .index_name("probe")
            .search_vector(aws_sdk_dynamodb::types::AttributeValue::N("0".to_owned()))
            .top_k(1)
            .send()
            .await;
        Ok(!matches!(probe.map_err(|e| Error::sdk_or_unsupported("SearchVectors", e)), Err(Error::Unsupported { .. })))
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
        self.execute(
            Call::new("UpdateTimeToLive", ""),
            self.inner
                .client
                .update_time_to_live()
                .table_name(&*self.inner.name)
                .time_to_live_specification(spec)
                .send(),
        )
        .await
        .map_err(|e| Error::sdk("UpdateTimeToLive", e))?;
        Ok(())
    }

    /// The table's description (`DescribeTable`).
    async fn describe_now(&self) -> Result<Option<aws_sdk_dynamodb::types::TableDescription>, Error> {
        let resp = self
            .execute(
                Call::new("DescribeTable", ""),
                self.inner.client.describe_table().table_name(&*self.inner.name).send(),
            )
            .await
            .map_err(|e| Error::sdk("DescribeTable", e))?;
        Ok(resp.table)
    }

    async fn wait_active(&self) -> Result<(), Error> {
        for _ in 0..600 {
            let table = self.describe_now().await?;
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

    /// The ARN of the table's latest stream (`DescribeTable`'s `LatestStreamArn`), which a
    /// `stream::StreamReader` (feature `aws-sdk-dynamodbstreams`) reads; `None` when the table has no
    /// enabled stream (a disabled stream stays readable for 24 hours under its old ARN).
    ///
    /// ```no_run
    /// # async fn f(table: dynamo_entity::Table) -> dynamo_entity::Result<()> {
    /// let arn = table.stream_arn().await?.expect("the table declares a stream");
    /// # let _ = arn;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::Sdk`] (such as `ResourceNotFoundException` for a table that does not exist).
    pub async fn stream_arn(&self) -> Result<Option<String>, Error> {
        let table = self.describe_now().await?;
        let enabled = table.as_ref().and_then(|t| t.stream_specification()).is_some_and(|s| s.stream_enabled());
        Ok(table.and_then(|t| t.latest_stream_arn).filter(|_| enabled))
    }

    /// Deletes the table (`DeleteTable`).
    ///
    /// # Errors
    /// [`Error::Sdk`].
    pub async fn delete_table(&self) -> Result<(), Error> {
        self.execute(
            Call::new("DeleteTable", ""),
            self.inner.client.delete_table().table_name(&*self.inner.name).send(),
        )
        .await
        .map_err(|e| Error::sdk("DeleteTable", e))?;
        Ok(())
    }
}
