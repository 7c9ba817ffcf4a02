//! [`Table`]: the operations on one DynamoDB table.
//!
//! | | |
//! |---|---|
//! | [`Table::get`], [`Table::put`], [`Table::create`], [`Table::replace`], [`Table::delete`] | one item; `create` is create-if-absent ([`Error::AlreadyExists`](crate::Error::AlreadyExists)), `replace` must-exist ([`Error::NotFound`](crate::Error::NotFound)); a write DynamoDB applied is never an `Err`: the item it returns comes as [`Returned`](crate::error::Returned), decoded or with its decode problem |
//! | [`Table::update`] | typed `UpdateItem`: set, remove, add, subtract, append, prepend, set insert / delete, set-if-absent, conditions; keeps GSI and LSI keys in step |
//! | [`Table::query`], [`Table::collection`] | one partition of one index: typed sort-key conditions, filters, order, item counts (`max_items`, `page_items`), cursors, streams of pages or items; a whole item collection; strict by default, or [lenient](crate::query::QueryRequest::lenient) (each item that does not decode reported as an [`ItemError`](crate::error::ItemError) with its key, beside the rest) |
//! | [`Table::transact`], [`Table::transact_get`] | `TransactWriteItems` (up to 100 actions) with typed cancellation reasons; `TransactGetItems` |
//! | [`Table::batch_write`], [`Table::batch_get`] | any number of items in requests of 25 writes / 100 reads, unprocessed items retried with backoff and returned typed |
//! | [`stream::Change`](crate::stream::Change) | DynamoDB Streams records decoded into a table-level entity enum |
//! | [`Table::upgrade`], [`Table::upgrade_key`] | an item of an earlier schema version (every read upgrades it in memory) written back at the current one, only if the stored item is still the one read; see [`evolve`](crate::schema::evolve) and [`migrate::upgrade`](crate::migrate::upgrade) |
//! | `dynamo_entity_local::LocalDynamoDb` | DynamoDB Local for tests and examples, and a fault-injecting HTTP layer: the crate `dynamo-entity-local`, a dev-dependency |
//! | [`TableLayout::workbench`](crate::schema::TableLayout::workbench) | the table as an AWS NoSQL Workbench data model (format 3.0): one facet per entity with sample items, the GSIs and their projections; see [`design::workbench`](crate::design::workbench) |
//! | [`TableLayout::html`](crate::schema::TableLayout::html) | the design page: one self-contained HTML file of the access patterns with their capacity (per shard `Query` and for a sharded pattern's whole answer), the entity-to-index diagram, the item collections and index views of sample items, the keys and the lint findings; see [`design::html`](crate::design::html) |
//! | [`TableLayout::lint`](crate::schema::TableLayout::lint) | the design lint: hot partitions (offering write sharding), unbounded item collections without a sort key, reads that filter on the entity type, scans used for reads, unpadded integers in sort keys, template GSIs that native multi-attribute keys would serve, the inverted index's cost; see [`design::lint`](crate::design::lint) |
//! | [`TableLayout::write_capacity`](crate::schema::TableLayout::write_capacity), [`TableLayout::storage`](crate::schema::TableLayout::storage) | what one write costs in the table and in every index (template and multi-attribute GSIs, LSIs, the inverted index, each by its projection), and the storage of sample items per index; see [`design::estimate`](crate::design::estimate) |
//! | [`capacity`](crate::capacity) | capacity-unit estimates by DynamoDB's rules; the consumed capacity of every operation ([`Table::consumed`], [`Table::metered`] for one operation's figure, [`Page::consumed`](crate::Page::consumed), the batch outcomes, [`TransactWrite::send_with_capacity`](crate::transact::TransactWrite::send_with_capacity)) |
//! | [`render`] | the exact SDK request of any operation, built without sending ([`Table::render`], `render()` on every builder), with a deterministic JSON form for snapshot tests |
//!
//! Every request goes through one executor, which opens a `tracing` span named `dynamodb`
//! (target `dynamo_entity`) with the fields `operation` (such as `PutItem`), `table`, `entity`
//! (the entity type; empty for a request of several types), `index` (a query's index name;
//! empty for the table), `attempt` (1 for an operation's first request; the library's own
//! retries of unprocessed items, transaction conflicts and unique-field races count up, the
//! SDK's retries of throttling and 5xx happen inside one attempt), and, when the answer comes,
//! `consumed` (capacity units as DynamoDB reported them) and `outcome` (`ok` or `error`). A
//! subscriber sees them with a filter such as `dynamo_entity=info`. The consumed capacity is
//! also added up on the handle's meter ([`Table::consumed`]).

mod admin;
pub(crate) mod body;
mod describe;
mod exec;
mod held;
pub mod render;
pub(crate) mod resend;

pub(crate) use exec::{Call, Next, Retrying};

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemInputBuilder;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure};

use crate::capacity::{Capacity, CapacityMeter};
#[cfg(doc)]
use crate::schema::Entity;
use crate::schema::{AttributeNames, Index, PrimaryKey, Projection, TableLayout};

/// The future of an operation that sends a request: boxed, so that its type does not repeat
/// the operation's bounds. An entity the handle's declaration does not list is then one
/// compile error, at the argument, not a second one at the call's future and a third at its
/// `.await`. It is `Send`; a value written by reference (`put(&value)`, `batch_put`) must
/// then be `Sync`, as an entity of plain fields is.
///
/// ```no_run
/// # async fn f<E: dynamo_entity::Entity>(table: dynamo_entity::Table, key: dynamo_entity::Key<E>) -> dynamo_entity::Result<()> {
/// let op: dynamo_entity::table::Op<'static, Option<E>> = table.get(key);
/// let user = op.await?; // `None` when there is no such item
/// # Ok(())
/// # }
/// ```
pub type Op<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, crate::Error>> + Send + 'a>>;

/// The entities of a handle's layout, once known: set at most once, shared by the handle's
/// clones and by what its reads return.
pub(crate) type LayoutEntities = Arc<OnceLock<Vec<&'static crate::schema::EntitySchema>>>;
/// One DynamoDB table holding any number of entity types (single-table design).
///
/// Cheap to clone: one reference count (the SDK client, the name and the capacity meter are shared).
///
/// ```no_run
/// # async fn f(client: aws_sdk_dynamodb::Client) {
/// let table = dynamo_entity::Table::new(client, "skill-exchange");
/// # }
/// ```
///
/// # Untyped and declared handles
/// Every operation is defined once, on `Table<D>`, and accepts an entity `E` when `D` admits
/// it ([`Admits`](crate::schema::Admits)):
///
/// | handle | made by | admits |
/// |---|---|---|
/// | `Table` (`Table<Untyped>`) | [`Table::new`] | every entity, each written with the attribute names its own declaration gives it |
/// | `Table<D>`, `D` a `#[derive(TableDef)]` | [`Table::declared`] | the entities `D` lists in `entities(...)`; any other is a compile error naming both (see [`EntityOf`](crate::schema::EntityOf)) |
///
/// The entities a declaration lists are checked at compile time to use its attribute names
/// and type attribute, so everything a `Table<D>` writes carries `D`'s names. The builders
/// that mix entities ([`transact`](Table::transact), [`transact_get`](Table::transact_get),
/// [`batch_write`](Table::batch_write), [`batch_get_mixed`](Table::batch_get_mixed),
/// [`render`](Table::render)) carry `D` and ask the same of each entity added.
/// [`Table::untyped`] gives the untyped handle on the same table and meter. A program written
/// for `Table::new` moves to a declared handle by adding `.declared::<D>()`: its calls stay as
/// they are, and an entity the declaration misses becomes a compile error.
pub struct Table<D = Untyped> {
    // One reference count for the whole handle: every request builder (`update`, `query`, ...)
    // clones it.
    inner: Arc<TableInner>,
    decl: PhantomData<fn() -> D>,
}

/// The declaration of an untyped [`Table`] handle, which accepts every entity: `Table` is
/// `Table<Untyped>`. No value of it exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untyped {}

/// The untyped handle's builders accept every entity.
impl<E> crate::schema::Admits<E> for Untyped {}

/// The untyped handle scans a table into any entity enum.
impl<T: crate::schema::EntityEnum> crate::schema::TableItems<T> for Untyped {}

impl<D> Clone for Table<D> {
    fn clone(&self) -> Self {
        Table { inner: Arc::clone(&self.inner), decl: PhantomData }
    }
}

/// What a [`Table`] handle shares with its clones.
struct TableInner {
    client: Client,
    name: Arc<str>,
    meter: Arc<CapacityMeter>,
    /// The projections of the table's secondary indexes, when known: from
    /// [`Table::with_layout`] or [`Table::create_table_from`]. Shared with metered handles.
    projections: Arc<OnceLock<BTreeMap<Index, Projection>>>,
    /// The entity type values that several entities of the table share (told apart by their
    /// key templates), when the layout is known. Shared with metered handles.
    shared_types: Arc<OnceLock<Vec<&'static str>>>,
    /// The entities of the table, when the layout is known. Shared with metered handles.
    entities: LayoutEntities,
    /// The projections of the table's secondary indexes by index name, learned from
    /// `DescribeTable` once, when a read needed one the handle did not know (`None` when that
    /// request failed). Shared with every handle made from this one.
    described: Arc<OnceLock<Option<BTreeMap<String, Projection>>>>,
    /// How single-item writes are sent (see [`resend`]). Shared with metered handles.
    writes: Arc<resend::Writes>,
}

impl<D> std::fmt::Debug for Table<D> {
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
        // Each client is made from the one given, once: a client made from a made one walks a
        // deeper configuration on every request. Answers' items are read from the body by this
        // crate's reader (`body`).
        let writes = Arc::new(resend::Writes::of(&client));
        let client = body::reading(&client);
        Table {
            inner: Arc::new(TableInner {
                client,
                name: Arc::from(name.into()),
                meter: Arc::default(),
                projections: Arc::default(),
                shared_types: Arc::default(),
                entities: Arc::default(),
                described: Arc::default(),
                writes,
            }),
            decl: PhantomData,
        }
    }

    /// A handle on the same table (same client, name and meter) that knows the table's
    /// declaration: the projections of its secondary indexes. A query through an index whose
    /// projection (`INCLUDE`) leaves out attributes of the entity read then reads the whole
    /// items by primary key (`BatchGetItem`), as for `KEYS_ONLY`, instead of decoding the
    /// projected ones, whose left-out `Option` fields would read as `None` (and erase the stored
    /// values if written back). [`Table::create_table_from`] records the layout it creates on
    /// its handle (and its clones) too.
    ///
    /// Without a layout, a handle knows only what index items show: `KEYS_ONLY` items and
    /// `INCLUDE` items without the type attribute are read whole, and so is an item with the
    /// type attribute that lacks any attribute the entity reads (it may be a `None`, or left
    /// out by an `INCLUDE` projection); only an item holding them all is decoded as it is (see
    /// [`query::projected`](crate::query)). A handle bound to its declaration
    /// ([`Table::declared`]) knows the declared projections.
    pub fn with_layout(&self, layout: &TableLayout) -> Table {
        Table {
            inner: Arc::new(TableInner {
                client: self.inner.client.clone(),
                name: Arc::clone(&self.inner.name),
                meter: Arc::clone(&self.inner.meter),
                projections: Arc::new(OnceLock::from(layout.projections.clone())),
                shared_types: Arc::new(OnceLock::from(layout.shared_types())),
                entities: Arc::new(OnceLock::from(layout.entities.clone())),
                described: Arc::clone(&self.inner.described),
                writes: Arc::clone(&self.inner.writes),
            }),
            decl: PhantomData,
        }
    }

    /// The entities of the handle's layout ([`Table::with_layout`], [`Table::declared`]),
    /// when it knows them.
    pub(crate) fn layout_entities(&self) -> Option<&[&'static crate::schema::EntitySchema]> {
        self.inner.entities.get().map(Vec::as_slice)
    }

    /// The handle's slot for [`layout_entities`](Self::layout_entities), shared (not copied)
    /// with what its reads return.
    pub(crate) fn layout_entities_shared(&self) -> LayoutEntities {
        Arc::clone(&self.inner.entities)
    }

    /// The entities among which the handle reads `E`'s items: the handle's layout
    /// ([`Table::with_layout`], [`Table::declared`]), else the table declaration `E` names
    /// ([`Entity::TABLE_ENTITIES`](crate::Entity::TABLE_ENTITIES)); `None` when neither is known.
    pub(crate) fn entities_of<E: crate::Entity>(&self) -> Option<&[&'static crate::schema::EntitySchema]> {
        self.layout_entities().or(E::TABLE_ENTITIES)
    }

    /// Whether other entities of the table share `E`'s entity type value, as the handle's
    /// layout (else `E`'s table declaration) says: `E`'s items are then told apart by their key
    /// templates. `false` when neither is known.
    pub(crate) fn shares_type<E: crate::Entity>(&self) -> bool {
        match self.inner.shared_types.get() {
            Some(shared) => shared.contains(&E::TYPE),
            None => E::TABLE_ENTITIES.is_some_and(|all| all.iter().filter(|e| e.name == E::TYPE).count() > 1),
        }
    }

    /// What a read of `E`'s items through `index` knows of the table, for the
    /// [`owner`](crate::owner) rule.
    pub(crate) fn view_of<E: crate::Entity>(&self, index: Index) -> crate::owner::View<'_> {
        crate::owner::View {
            known: self.entities_of::<E>(),
            shared: self.shares_type::<E>(),
            projection: self.projection_for::<E>(index),
        }
    }

    /// The projection of secondary index `index` as a read of `E` knows it: from the handle's
    /// layout, else from the table declaration `E` names (an index it does not list projects
    /// everything), else as the handle learned it ([`learn_projection`](Self::learn_projection)).
    pub(crate) fn projection_for<E: crate::Entity>(&self, index: Index) -> Option<Projection> {
        self.projection(index)
            .or_else(|| {
                let declared = E::TABLE_INDEXES?;
                Some(declared.iter().find(|d| d.index == index).map_or(Projection::All, |d| d.projection))
            })
            .or_else(|| self.described(E::NAMES, index))
    }

    /// The projection of secondary index `index`, when the handle knows the table's layout
    /// ([`Table::with_layout`]): as declared, [`Projection::All`] for an index not listed.
    pub(crate) fn projection(&self, index: Index) -> Option<Projection> {
        let known = self.inner.projections.get()?;
        Some(known.get(&index).copied().unwrap_or(Projection::All))
    }

    /// The projection of `index` (named under `names`) as `DescribeTable` reported it, once
    /// learned.
    fn described(&self, names: &AttributeNames, index: Index) -> Option<Projection> {
        let name = names.index_name(index)?;
        self.inner.described.get()?.as_ref()?.get(name).copied()
    }

    /// The projection of `index` (named under `names`), learned from `DescribeTable` the first
    /// time a handle (or any handle made from it) needs one it does not know; `None` when the
    /// request fails (a role without `dynamodb:DescribeTable`) or the table has no such index.
    /// One request per handle, however many reads ask.
    ///
    /// Boxed: a read that awaits it holds a pointer, not the `DescribeTable` future, so a
    /// program whose reads never build it (every entity names its table declaration,
    /// [`query::whole::hydrate`](crate::query::whole::hydrate)) leaves `DescribeTable`'s code out.
    pub(crate) fn learn_projection<'a>(
        &'a self,
        names: &'a AttributeNames,
        index: Index,
    ) -> futures::future::BoxFuture<'a, Option<Projection>> {
        Box::pin(async move {
            if self.inner.described.get().is_none() {
                let learned = describe::projections(self).await;
                let _ = self.inner.described.set(learned);
            }
            self.described(names, index)
        })
    }

    /// This handle bound to the table declaration `D`: the same table, client and capacity
    /// meter, whose operations accept only the entities `D` lists (see the
    /// [type's documentation](Table#untyped-and-declared-handles)). Nothing is sent.
    ///
    /// ```no_run
    /// use dynamo_entity::{Entity, Table, TableDef};
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "USER#<id>", sk = "PROFILE")]
    /// pub struct User { pub id: String }
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "INVOICE#<id>", sk = "META")]
    /// pub struct Invoice { pub id: String }
    ///
    /// #[derive(TableDef)]
    /// #[table(entities(User))]
    /// pub struct Shop;
    ///
    /// # async fn f(client: aws_sdk_dynamodb::Client) -> dynamo_entity::Result<()> {
    /// let shop: Table<Shop> = Table::new(client, "shop").declared();
    /// shop.put(&User { id: "u1".into() }).await?; // `User` is in `#[table(entities(User))]` of `Shop`
    /// // shop.put(&Invoice { .. }) does not compile: `Invoice` is not an entity of table `Shop`
    /// # Ok(())
    /// # }
    /// ```
    pub fn declared<D: crate::schema::TableDef>(self) -> Table<D> {
        // The declaration's projections: a query through an `INCLUDE` or `KEYS_ONLY` index
        // reads the whole items (see `with_layout`). A declaration that compiled has a layout.
        if let Ok(layout) = D::layout() {
            self.learn_layout(&layout);
        }
        Table { inner: self.inner, decl: PhantomData }
    }
}

impl<D> Table<D> {
    /// Records the projections of `layout` on this handle and its clones, unless a layout is
    /// already known.
    pub(crate) fn learn_layout(&self, layout: &TableLayout) {
        let _ = self.inner.projections.set(layout.projections.clone());
        let _ = self.inner.shared_types.set(layout.shared_types());
        let _ = self.inner.entities.set(layout.entities.clone());
    }

    /// The untyped handle on the same table, client and capacity meter: it accepts every
    /// entity. A declared handle offers every operation itself, and the migration runner
    /// ([`Migrations`](crate::migrate::runner::Migrations)) takes either. One reference count;
    /// nothing is sent.
    pub fn untyped(&self) -> Table {
        Table { inner: Arc::clone(&self.inner), decl: PhantomData }
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
    pub fn metered(&self) -> Table<D> {
        Table {
            inner: Arc::new(TableInner {
                client: self.inner.client.clone(),
                name: Arc::clone(&self.inner.name),
                meter: Arc::new(CapacityMeter::child(Arc::clone(&self.inner.meter))),
                projections: Arc::clone(&self.inner.projections),
                shared_types: Arc::clone(&self.inner.shared_types),
                entities: Arc::clone(&self.inner.entities),
                described: Arc::clone(&self.inner.described),
                writes: Arc::clone(&self.inner.writes),
            }),
            decl: PhantomData,
        }
    }

    /// The SDK client the handle sends through: the client it was made with (its
    /// configuration, credentials, HTTP client and interceptors), with one interceptor of this
    /// crate added, which reads the items of the library's own requests' answers and leaves
    /// every other request as it is.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The table name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// A handle on the same table (same client, name, meter and layout) whose writes add
    /// nothing to the items: no write history (`_w1` to `_w4`, see
    /// [`write_token`](crate::write_token)). For a table whose items other programs read or
    /// validate and where no attribute may be added.
    ///
    /// What it changes:
    ///
    /// | | with write tokens (the default) | without |
    /// |---|---|---|
    /// | attributes added to an item | `_w1` to `_w4`, 76 bytes | none |
    /// | a single-item write whose answer is lost | sent again; applied once | not sent again: [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown) |
    /// | [`Table::resolve`] of it | applied or not, from the item's history | [`Resolved::CannotTell`](crate::write_token::Resolved) (a delete: whether the item is gone) |
    /// | a throttled write | sent again | sent again |
    ///
    /// ```
    /// # async fn f(table: dynamo_entity::Table) {
    /// let plain = table.without_write_tokens();
    /// # let _ = plain;
    /// # }
    /// ```
    pub fn without_write_tokens(&self) -> Table<D> {
        let writes = resend::Writes { tokens: false, ..(*self.inner.writes).clone() };
        Table {
            inner: Arc::new(TableInner {
                client: self.inner.client.clone(),
                name: Arc::clone(&self.inner.name),
                meter: Arc::clone(&self.inner.meter),
                projections: Arc::clone(&self.inner.projections),
                shared_types: Arc::clone(&self.inner.shared_types),
                entities: Arc::clone(&self.inner.entities),
                described: Arc::clone(&self.inner.described),
                writes: Arc::new(writes),
            }),
            decl: PhantomData,
        }
    }

    /// How the handle sends its single-item writes.
    pub(crate) fn writes(&self) -> &resend::Writes {
        &self.inner.writes
    }
}

impl Table {
    /// The `GetItem` of [`Table::get`] / [`Table::get_consistent`].
    pub(crate) fn get_request(
        &self,
        names: &AttributeNames,
        key: &PrimaryKey,
        consistent: bool,
    ) -> GetItemInputBuilder {
        aws_sdk_dynamodb::operation::get_item::GetItemInput::builder()
            .table_name(&*self.inner.name)
            .set_key(Some(names.key_item(key)))
            .consistent_read(consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }
}

pub(crate) const RETURN_OLD_ON_FAILURE: ReturnValuesOnConditionCheckFailure =
    ReturnValuesOnConditionCheckFailure::AllOld;

/// A client for unit tests that build requests and send none: no credentials, no endpoint; its
/// sleep (which the SDK requires) is tokio's.
#[cfg(test)]
pub(crate) fn offline_client() -> aws_sdk_dynamodb::Client {
    #[derive(Debug)]
    struct TokioSleep;
    impl aws_sdk_dynamodb::config::AsyncSleep for TokioSleep {
        fn sleep(&self, duration: std::time::Duration) -> aws_sdk_dynamodb::config::Sleep {
            aws_sdk_dynamodb::config::Sleep::new(tokio::time::sleep(duration))
        }
    }
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .sleep_impl(aws_sdk_dynamodb::config::SharedAsyncSleep::new(TokioSleep))
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}
