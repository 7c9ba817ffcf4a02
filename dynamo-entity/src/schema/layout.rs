//! The table as its declaration defines it: [`TableLayout`] (key attributes and their types,
//! GSIs, LSIs, the inverted index, projections, TTL, the stream), built from the entities' schemas by
//! [`TableLayout::new`] or from a `#[derive(TableDef)]` declaration ([`TableDef`],
//! [`TableLayout::declared`]). The reports drawn from it (CloudFormation, NoSQL Workbench,
//! Markdown, lint) are in [`design`](crate::design).

use std::collections::BTreeMap;

use crate::error::Error;
use crate::key::KeyType;
use crate::schema::StreamViewType;
use crate::schema::projection::{GsiDecl, Projection};
use crate::schema::vector::{VectorIndex, count};
use crate::schema::{AttributeNames, EntitySchema, Index, MultiKeyIndex};

/// The key attributes, GSIs and TTL attribute of one table, as its entities define them.
#[derive(Debug, Clone)]
pub struct TableLayout {
    pub(crate) entities: Vec<&'static EntitySchema>,
    /// The table's attribute and index names, those of its entities.
    pub(crate) names: &'static AttributeNames,
    pub(crate) key_types: BTreeMap<&'static str, KeyType>,
    pub(crate) gsis: Vec<u8>,
    /// The GSIs keyed on the items' own attributes, by number (see
    /// [`multi_key`](crate::schema::multi_key)); not in `gsis`.
    pub(crate) multi_gsis: Vec<MultiKeyIndex>,
    /// The LSIs, by number (1 to 5).
    pub(crate) lsis: Vec<u8>,
    pub(crate) inverted: bool,
    pub(crate) ttl: Option<&'static str>,
    /// The projection of each secondary index; ALL for an index that is not listed.
    pub(crate) projections: BTreeMap<Index, Projection>,
    /// The reads the application registered besides the generated queries, for the design
    /// lint (see [`TableLayout::reads`]).
    pub(crate) reads: Vec<Read>,
    /// The declared stream: `None` when the declaration says nothing about it (the table's
    /// stream is then left as it is), `Some(None)` for no stream, `Some(Some(v))` for a stream
    /// of view type `v`.
    pub(crate) stream: Option<Option<StreamViewType>>,
    /// The vector indexes the entities declare, by name.
    pub(crate) vectors: Vec<VectorIndex>,
}

impl TableLayout {
    /// The entity type values that more than one of the entities share (told apart by their
    /// key templates, which the table's checks prove disjoint).
    pub(crate) fn shared_types(&self) -> Vec<&'static str> {
        let mut shared: Vec<&'static str> = Vec::new();
        for (i, e) in self.entities.iter().enumerate() {
            if self.entities[..i].iter().any(|o| o.name == e.name) && !shared.contains(&e.name) {
                shared.push(e.name);
            }
        }
        shared
    }

    /// The layout of a table holding `entities`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when two entities store a key attribute with different types (S and
    /// N), use different TTL attributes (a table has one), share a type name and can produce
    /// the same primary key, meet a multi-attribute GSI they do not declare (store one of its
    /// key attributes with another type, or all of them), or use different
    /// attribute names ([`Entity::NAMES`](crate::Entity::NAMES): all of them must name the same
    /// table with `#[entity(table = ...)]`, or none).
    pub fn new(entities: &[&'static EntitySchema]) -> Result<TableLayout, Error> {
        let table_names = entities.first().map_or(&AttributeNames::DEFAULT, |e| e.names);
        for e in entities {
            if *e.names != *table_names {
                return Err(Error::Invalid {
                    reason: format!(
                        "entities {} and {} use different attribute names: every entity of one table must say the \
                         same `#[entity(table = ...)]` (or none)",
                        entities[0].name, e.name
                    ),
                });
            }
        }
        let mut types: BTreeMap<&'static str, (KeyType, &'static str)> = BTreeMap::new();
        let mut gsis = Vec::new();
        let mut lsis = Vec::new();
        let mut ttl: Option<(&'static str, &'static str)> = None;
        let mut names: BTreeMap<&'static str, &'static EntitySchema> = BTreeMap::new();
        for schema in entities {
            // Entities may share a type name when their keys cannot collide: the key templates
            // then tell their items apart.
            if let Some(other) = names.insert(schema.name, schema) {
                if crate::schema::check::keys_collide(other, schema) {
                    return Err(Error::Invalid {
                        reason: format!(
                            "two entities of the table are named {} and can produce the same primary key; entities \
                             that share a type name are told apart by their key templates",
                            schema.name
                        ),
                    });
                }
            }
            match (ttl, &schema.ttl) {
                (Some((attr, owner)), Some(f)) if attr != f.attribute => {
                    return Err(Error::Invalid {
                        reason: format!(
                            "{owner} keeps its time to live in attribute `{attr}` and {} in `{}`; a table has one \
                             TTL attribute, so entities of one table must use the same attribute name \
                             (`#[entity(ttl, rename = \"...\")]`)",
                            schema.name, f.attribute
                        ),
                    });
                }
                (None, Some(f)) => ttl = Some((f.attribute, schema.name)),
                _ => {}
            }
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
                    if !gsis.contains(&n) {
                        gsis.push(n);
                    }
                }
            }
            for l in schema.lsis {
                if let Index::Lsi(n) = l.index {
                    if !lsis.contains(&n) {
                        lsis.push(n);
                    }
                }
            }
        }
        gsis.sort_unstable();
        lsis.sort_unstable();
        let multi_gsis = multi_gsis_of(entities, &gsis, &mut types)?;
        // An entity meeting a multi-attribute GSI it does not declare (see
        // `undeclared_multi_gsi`): an attribute of another type, or all of them.
        let entity_names: Vec<&str> = entities.iter().map(|e| e.name).collect();
        for i in 0..entities.len() {
            for n in 1..=crate::schema::MAX_GSI {
                let text = crate::schema::multi_key::undeclared_multi_gsi(entities, &entity_names, "", i, n);
                if !text.is_empty() {
                    return Err(Error::Invalid { reason: text.as_str().to_owned() });
                }
            }
        }
        let vectors = vectors_of(entities)?;
        Ok(TableLayout {
            entities: entities.to_vec(),
            names: table_names,
            key_types: types.into_iter().map(|(k, (t, _))| (k, t)).collect(),
            gsis,
            multi_gsis,
            lsis,
            inverted: entities.iter().any(|e| e.inverted.is_some()),
            ttl: ttl.map(|(a, _)| a),
            projections: BTreeMap::new(),
            reads: Vec::new(),
            stream: None,
            vectors,
        })
    }

    /// The vector indexes the entities declare (`#[entity(vector(...))]`), by name: created
    /// with the table, in the CloudFormation export, compared by [`Table::diff`](crate::Table::diff).
    ///
    /// ```
    /// # use dynamo_entity::{Entity, schema::TableLayout};
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "DOC#<id>", sk = "META")]
    /// struct Doc {
    ///     id: String,
    ///     #[entity(vector(index = "DocsByMeaning", dimensions = 2, distance = euclidean))]
    ///     embedding: Vec<f32>,
    /// }
    /// let layout = TableLayout::new(&[Doc::schema()])?;
    /// assert_eq!(layout.vector_indexes()[0].name, "DocsByMeaning");
    /// # Ok::<(), dynamo_entity::Error>(())
    /// ```
    pub fn vector_indexes(&self) -> &[VectorIndex] {
        &self.vectors
    }

    /// The vector index named `name`, if the table has one.
    pub fn vector_index(&self, name: &str) -> Option<&VectorIndex> {
        self.vectors.iter().find(|v| v.name == name)
    }

    /// The table's attribute and index names: its entities' [`Entity::NAMES`](crate::Entity::NAMES)
    /// ([`AttributeNames::DEFAULT`] for a table without entities).
    pub fn names(&self) -> &'static AttributeNames {
        self.names
    }

    /// The index name of `index` in this table (`None` for the primary index).
    pub fn index_name(&self, index: Index) -> Option<&'static str> {
        self.names.index_name(index)
    }

    /// The entities, in the order given.
    pub fn entities(&self) -> &[&'static EntitySchema] {
        &self.entities
    }

    /// The DynamoDB type of a key attribute (`S` unless an entity stores it as a number).
    pub fn key_type(&self, attribute: &str) -> KeyType {
        self.key_types.get(attribute).copied().unwrap_or(KeyType::S)
    }

    /// The GSIs the entities use, by number.
    pub fn gsis(&self) -> &[u8] {
        &self.gsis
    }

    /// The LSIs the entities use (or the declaration names), by number: `LSI<n>` on `PK` /
    /// `LSI<n>SK`. DynamoDB creates them only with the table.
    pub fn lsis(&self) -> &[u8] {
        &self.lsis
    }

    /// Whether the table has the inverted index [`Index::Inverted`] (`SK` / `PK`), because an
    /// entity is `#[entity(inverted)]`. It adds no key attribute: it is keyed on `PK` and `SK`.
    pub fn has_inverted(&self) -> bool {
        self.inverted
    }

    /// Every index of the table besides the primary one: the numbered GSIs, then the inverted
    /// index when an entity uses it, then the LSIs ([`Index::is_local`] tells them apart).
    pub fn indexes(&self) -> Vec<Index> {
        let mut out: Vec<Index> = self.gsis.iter().map(|&n| Index::Gsi(n)).collect();
        out.extend(self.lsis.iter().map(|&n| Index::Lsi(n)));
        if self.inverted {
            out.push(Index::Inverted);
        }
        out
    }

    /// The table, then every secondary index in [`TableLayout::indexes`] order with the
    /// multi-attribute GSIs among the numbered GSIs by number: the order in which the design
    /// diagram and the index views show them.
    pub(crate) fn ordered_indexes(&self) -> Vec<Index> {
        let mut gsis: Vec<u8> = self.gsis.clone();
        gsis.extend(self.multi_gsis.iter().filter_map(|g| match g.index {
            Index::Gsi(n) => Some(n),
            _ => None,
        }));
        gsis.sort_unstable();
        gsis.dedup();
        std::iter::once(Index::Primary)
            .chain(gsis.into_iter().map(Index::Gsi))
            .chain(self.indexes().into_iter().filter(|i| !matches!(i, Index::Gsi(_))))
            .collect()
    }

    /// The TTL attribute, if an entity declares one.
    pub fn ttl(&self) -> Option<&'static str> {
        self.ttl
    }

    /// Every key attribute of the table's key schema, GSIs and LSIs (`LSI<n>SK`; their
    /// partition key is `PK`), in `AttributeDefinitions` order.
    pub fn key_attributes(&self) -> Vec<&'static str> {
        let names = self.names;
        let mut out = vec![names.pk, names.sk];
        for &n in &self.gsis {
            out.push(names.pk_of(Index::Gsi(n)));
            out.push(names.sk_of(Index::Gsi(n)));
        }
        for &n in &self.lsis {
            out.push(names.sk_of(Index::Lsi(n)));
        }
        for g in &self.multi_gsis {
            for a in g.attributes() {
                if !out.contains(&a.attribute) {
                    out.push(a.attribute);
                }
            }
        }
        out
    }

    /// The GSIs keyed on the items' own attributes (up to four partition and four sort key
    /// attributes each), by number: not among [`gsis`](Self::gsis) or
    /// [`indexes`](Self::indexes), which are keyed on `GSI<n>PK` / `GSI<n>SK`.
    pub fn multi_gsis(&self) -> &[MultiKeyIndex] {
        &self.multi_gsis
    }

    /// The multi-attribute GSI `index`, if the table has one.
    pub fn multi_gsi(&self, index: Index) -> Option<&MultiKeyIndex> {
        self.multi_gsis.iter().find(|g| g.index == index)
    }

    /// Declares the table's DynamoDB stream with view type `view` (what each record carries):
    /// [`Table::create_table_from`](crate::Table::create_table_from) enables it
    /// (`StreamSpecification`), the [CloudFormation export](TableLayout::cloudformation) has
    /// it, [`Table::diff`](crate::Table::diff) reports a table without it or with another view
    /// type, and [`Table::apply`](crate::Table::apply) enables it (disabling the old stream
    /// first when the view type differs: DynamoDB does not change a view type in place).
    /// `#[derive(TableDef)]` declares it with `#[table(stream = new_and_old_images)]`.
    ///
    /// ```
    /// use dynamo_entity::schema::TableLayout;
    /// use dynamo_entity::stream::StreamViewType;
    /// # use dynamo_entity::Entity;
    /// # #[derive(Entity, Debug, Clone)]
    /// # #[entity(pk = "USER#<id>", sk = "PROFILE")]
    /// # struct User { id: String }
    ///
    /// let layout = TableLayout::new(&[User::schema()])?.stream(StreamViewType::NewAndOldImages);
    /// assert_eq!(layout.stream_view_type(), Some(StreamViewType::NewAndOldImages));
    /// let cfn = layout.cloudformation("users");
    /// let spec = &cfn["Resources"]["UsersTable"]["Properties"]["StreamSpecification"];
    /// assert_eq!(spec["StreamViewType"], "NEW_AND_OLD_IMAGES");
    /// # Ok::<(), dynamo_entity::Error>(())
    /// ```
    #[must_use]
    pub fn stream(mut self, view: StreamViewType) -> TableLayout {
        self.stream = Some(Some(view));
        self
    }

    /// Declares that the table has no stream: [`Table::diff`](crate::Table::diff) reports a
    /// stream the table has, and [`Table::apply`](crate::Table::apply) disables it (its
    /// consumers stop receiving records). Without this or [`TableLayout::stream`], the
    /// declaration says nothing about the stream and `diff` leaves it out, so that a stream
    /// enabled elsewhere (a Lambda trigger's template) is not disabled by a migration.
    ///
    /// ```
    /// # use dynamo_entity::schema::TableLayout;
    /// # use dynamo_entity::Entity;
    /// # #[derive(Entity, Debug, Clone)]
    /// # #[entity(pk = "USER#<id>", sk = "PROFILE")]
    /// # struct User { id: String }
    /// let layout = TableLayout::new(&[User::schema()])?.without_stream();
    /// assert_eq!(layout.stream_view_type(), None);
    /// assert!(layout.declares_stream());
    /// # Ok::<(), dynamo_entity::Error>(())
    /// ```
    #[must_use]
    pub fn without_stream(mut self) -> TableLayout {
        self.stream = Some(None);
        self
    }

    /// The declared stream's view type; `None` without a declared stream.
    pub fn stream_view_type(&self) -> Option<StreamViewType> {
        self.stream.flatten()
    }

    /// Whether the declaration says anything about the stream ([`TableLayout::stream`] or
    /// [`TableLayout::without_stream`]); [`Table::diff`](crate::Table::diff) compares the
    /// table's stream only then.
    pub fn declares_stream(&self) -> bool {
        self.stream.is_some()
    }
}

/// The multi-attribute GSIs of `entities`, by number, with their attributes' types added to
/// `types`.
///
/// # Errors
/// [`Error::Invalid`] when two entities give one index different key schemas, one entity
/// writes an index with key templates (`gsis`) that another keys on its attributes, or a key
/// attribute has two types.
fn multi_gsis_of(
    entities: &[&'static EntitySchema],
    gsis: &[u8],
    types: &mut BTreeMap<&'static str, (KeyType, &'static str)>,
) -> Result<Vec<MultiKeyIndex>, Error> {
    let mut out: Vec<(MultiKeyIndex, &'static str)> = Vec::new();
    for schema in entities {
        for g in schema.multi_gsis {
            if let Index::Gsi(n) = g.index {
                if gsis.contains(&n) {
                    return Err(Error::Invalid {
                        reason: format!(
                            "GSI{n} is keyed on attributes by {} but on key templates (GSI{n}PK / GSI{n}SK) by                              another entity; an index has one key schema",
                            schema.name
                        ),
                    });
                }
            }
            match out.iter().find(|(o, _)| o.index == g.index) {
                Some((o, owner)) if !o.same_keys(g) => {
                    return Err(Error::Invalid {
                        reason: format!(
                            "{} is keyed on {} by {owner} but on {} by {}; entities sharing an index agree on its                              key attributes' names and types",
                            g.index,
                            o.describe(),
                            g.describe(),
                            schema.name
                        ),
                    });
                }
                Some(_) => {}
                None => out.push((*g, schema.name)),
            }
            for a in g.attributes() {
                match types.get(a.attribute) {
                    Some((other, owner)) if *other != a.key_type => {
                        return Err(Error::Invalid {
                            reason: format!(
                                "key attribute {} is {} in {} but {other} in {owner}; a table stores one type per key \
                                 attribute",
                                a.attribute, a.key_type, schema.name
                            ),
                        });
                    }
                    _ => {
                        types.insert(a.attribute, (a.key_type, schema.name));
                    }
                }
            }
        }
    }
    out.sort_by_key(|(g, _)| match g.index {
        Index::Gsi(n) => n,
        _ => 0,
    });
    Ok(out.into_iter().map(|(g, _)| g).collect())
}

/// A table declared with `#[derive(TableDef)]`: its entities and secondary indexes, checked
/// together at compile time, and the table-level entity enum.
///
/// ```rust,no_run
/// use dynamo_entity::{Entity, Table, TableDef};
///
/// #[derive(Entity, Debug, Clone)]
/// #[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "EMAIL#<email>", gsi1_sk = "USER")]
/// pub struct User { pub id: String, pub email: String }
///
/// #[derive(Entity, Debug, Clone)]
/// #[entity(pk = "SKILL#<id>", sk = "META", rename_all = "camelCase",
///          gsi2 = "CAT#<category>", gsi2_sk = "<id>", gsi3 = "SELLER#<seller_id>", gsi3_sk = "<downloads>")]
/// pub struct Skill {
///     pub id: String,
///     pub category: String,
///     pub seller_id: String,
///     pub title: String,
///     pub price_cents: u64,
///     pub downloads: u64,
/// }
///
/// #[derive(Entity, Debug, Clone)]
/// #[entity(pk = "SKILL#<skill_id>", sk = "REVIEW#<id>", lsi1 = "<rating>")]
/// pub struct Review { pub skill_id: String, pub id: String, pub rating: u8 }
///
/// #[derive(TableDef)]
/// #[table(
///     entities(User, Skill, Review),
///     gsi1(projection = all),                        // an index the entities write
///     gsi2(projection = include(title, priceCents)), // INCLUDE: attribute names, `_type` added
///     gsi3(projection = keys_only, sk = N),          // declared key type (S, N or B)
///     lsi1(projection = all),                        // an LSI: `PK` / `LSI1SK`, created with the table
///     item(name = AnyItem, derive(Debug, Clone)),    // the enum's name (default `<Name>Item`)
/// )]
/// pub struct SkillExchange;
///
/// # async fn f(table: Table, id: String) -> dynamo_entity::Result<()> {
/// let layout = SkillExchange::layout()?;
/// table.create_table_from(&layout).await?;        // CreateTable with the declared projections
/// let items: Vec<AnyItem> = table.collection(User::query(&id)).send().await?.decode_each()?;
/// let lints = layout.lint();                      // hot partitions, scans, filters on the type
/// # let _ = (items, lints);
/// # Ok(())
/// # }
/// ```
///
/// # `#[derive(TableDef)]`
///
/// | key | meaning |
/// |---|---|
/// | `entities(A, B, ...)` | the entity types (required); each becomes a variant of the generated enum |
/// | `gsi1(...)` … `gsi20(...)` | a GSI: `projection = all` (default), `keys_only` or `include(attr, ...)`; `pk = S\|N\|B`, `sk = S\|N\|B` fix its key types |
/// | `lsi1(...)` … `lsi5(...)` | an LSI (`PK` / `LSI<n>SK`): `projection = ...` as for a GSI; `sk = S\|N\|B` fixes its sort key type (its partition key is `PK`, so `pk = ...` is an error) |
/// | `inverted(projection = ...)` | the inverted index (`SK` / `PK`) of `#[entity(inverted)]` entities |
/// | `item = Name`, `item(name = Name, derive(...))` | the generated enum (an `#[derive(EntityEnum)]` enum) and its extra derives |
/// | `pk = "..."`, `sk = "..."` | the table's partition and sort key attributes (default `PK`, `SK`) |
/// | `entity_type = "..."` | the entity type attribute on every item (default `_type`; `type_attribute` is the same key) |
/// | `entity_type = none` | no type attribute at all (tables written by clients that store none): items are told apart by their key templates alone, which the checks below prove disjoint; writes store no type and their conditions guard on `attribute_exists(PK)` only; the entities must say `table = ...` |
/// | `gsiN(name = "...", pk = "...", sk = "...")` | GSI N's index name (default `GSI<n>`) and key attributes (default `GSI<n>PK` / `GSI<n>SK`); a name and a type together: `pk = "gsi1pk": N` |
/// | `lsiN(name = "...", sk = "...")` | LSI N's index name (default `LSI<n>`) and sort key attribute (default `LSI<n>SK`); its partition key is the table's |
/// | `inverted(name = "...")` | the inverted index's name (default `INVERTED`); it is keyed on the table's `sk` / `pk` |
/// | `stream = new_and_old_images` | the table's DynamoDB stream and its view type (`keys_only`, `new_image`, `old_image`, `new_and_old_images`), see [`TableLayout::stream`]; without it the declaration leaves the stream alone |
/// | `hierarchy(Parent(Child, ...), ...)` | a sort-key hierarchy, opted into: the parent's `begins_with` on its sort key's literal prefix is meant to read its children's items (`V#<version>` reads `V#<version>#COMMENT#<id>`), so the prefix check lets the entities of one hierarchy read each other's items on the table; key collisions are still errors, as is a child the parent's query cannot read |
///
/// It implements this trait: [`layout`](TableDef::layout) gives the [`TableLayout`], whose
/// CloudFormation export and [`Table::create_table_from`](crate::Table::create_table_from) carry
/// the projections. `create_table_from` sends the LSIs as `LocalSecondaryIndexes`, and the
/// CloudFormation export lists them under that key, since an LSI exists only if it is created with
/// its table. The layout also exports a NoSQL Workbench model, a Markdown access-pattern matrix
/// and an HTML design page, and lints the design: see [`design`](crate::design).
///
/// # The checks
///
/// Each of these is a compile error, reported together and pointing at the entity in
/// `entities(...)`:
///
/// * two entities that can produce the same primary key (`USER#<id>` / `PROFILE` twice);
/// * a prefix collision: in a partition both can share, one entity's query adds
///   `begins_with(SK, "ORDER#")` and the other's sort keys (`ORDER#<id>#LINE#<n>`) start with it
///   (checked on the table and each declared index);
/// * two entities with the same type name whose keys can collide (entities may share a type value,
///   such as `ORDER` for an order and a user's order line, when their key templates tell them
///   apart: the item enum and `#[derive(Collection)]` dispatch by type and key shape), or different
///   TTL attributes;
/// * an entity that writes a GSI or an LSI (or queries the inverted index) the table does not
///   declare;
/// * a key attribute stored as `S` by one entity and `N` by another, or not as declared;
/// * an `include(...)` attribute that no entity writing the index stores.
///
/// Keys are compared as they are stored. A placeholder matches the segments its type can write
/// ([`KeyPart::SHAPE`](crate::KeyPart::SHAPE)): a `String` any one `#`-separated segment, a `u64`
/// exactly 20 digits (so `V#<version>` and `V#LATEST` never collide), a `#[derive(KeyPart)]` enum
/// its variant names, a `Timestamp` its 24-character form (never `META`). Integers in a number
/// key, or unpadded (`<n:raw>`), are plain decimal of any width. A case-folded key compares
/// without case (a `bool` writes `TRUE` in an uppercased key).
///
/// A query of an entity through a `keys_only` or `include(...)` index returns whole entities: the
/// index items are told to be the entity's by their primary key's shape, and the whole items are
/// then read by their keys (`BatchGetItem`, in the index's order; an item deleted between the two
/// reads is left out). That costs a second read per page; `send_keys()` returns the primary keys
/// alone, and an index with `projection = all` needs no second read.
///
/// # Attribute and index names
///
/// Tables designed for ElectroDB or DynamoDB Toolbox often use lower-case key attributes, their own
/// type attribute and named indexes. Declare the names on the table and point each entity at it:
///
/// ```rust,no_run
/// use dynamo_entity::{Entity, TableDef};
///
/// #[derive(Entity)]
/// #[entity(table = Shop, pk = "USER#<id>", sk = "PROFILE", gsi1 = "EMAIL#<email>", gsi1_sk = "USER")]
/// pub struct User { pub id: String, pub email: String }
///
/// #[derive(TableDef)]
/// #[table(
///     entities(User),
///     pk = "pk", sk = "sk", entity_type = "__edb_e__",
///     gsi1(name = "ByEmail", pk = "gsi1pk", sk = "gsi1sk", projection = all),
///     inverted(name = "ByTarget"),
/// )]
/// pub struct Shop;
/// ```
///
/// Items of `User` are then `{pk, sk, __edb_e__, gsi1pk, gsi1sk, id, email}`, its queries go to
/// the index `ByEmail`, and `Shop::layout()` creates, exports (CloudFormation, NoSQL Workbench,
/// design document, design page) and lints the table under these names. The names are `&'static
/// str` constants ([`AttributeNames`]), so they cost nothing at run time.
///
/// Compile errors, each pointing at the offending name: an empty attribute name or one over
/// DynamoDB's 255 bytes; an index name that is not 3 to 255 characters of `a-z A-Z 0-9 _ . -`; two
/// roles sharing an attribute (such as `pk` and `sk`, or a GSI key and the type attribute); two
/// indexes with one name; a name for a key an index does not own (the inverted index's keys, an
/// LSI's partition key). And, pointing at the entity in `entities(...)`: an entity without
/// `table = Shop` (its items would get the default names), a field stored in one of the
/// table's key or type attributes (its value and the key would overwrite each other), and a
/// field whose alias (`#[entity(alias = "...")]`) is one of them (reads would take the key as
/// the field's value). Pointing at
/// `Shop` in `#[entity(table = Shop)]`: an entity that `Shop` does not list in `entities(...)`
/// (its keys would escape the table's checks).
///
/// # A handle bound to the declaration
///
/// `Table::new(client, "shop").declared::<Shop>()` is a `Table<Shop>` (see
/// [`Table::declared`](crate::Table::declared)). Each operation is defined once, on `Table<D>`,
/// and accepts the entities `D` admits: `Shop`'s entities for a `Table<Shop>`, which are checked
/// to use its names, so everything it writes carries them. Any other entity is a compile error
/// naming the table and the entity ("`Invoice` is not an entity of table `Shop`", with the advice
/// to add it to `entities(...)`). `Table` alone is `Table<Untyped>`, the handle that accepts every
/// entity; `table.untyped()` gives it from a declared handle (same table and capacity meter).
/// `shop.scan_table()` scans into `Shop`'s item enum without naming it.
///
/// At run time, a batch or a transaction that mixes entities of differently named tables on one
/// table is refused before sending ([`Error::Invalid`](crate::Error::Invalid)), as is
/// `create_table` for such a list. The guard items of `#[entity(unique)]` fields use the table's
/// key and type attributes too (type value `_unique`, sort key `UNIQUE`; in a table with
/// `entity_type = none` they carry no type and are told apart by that key); their own attributes
/// keep fixed names: `entity`, `field`, `value`, `ownerPK` and `ownerSK` (the owner item's key), so
/// avoid those as key attribute names.
pub trait TableDef {
    /// The name of the declaring type, for messages.
    const NAME: &'static str;
    /// The entities, in declaration order.
    const ENTITIES: &'static [&'static EntitySchema];
    /// The declared secondary indexes, in declaration order.
    const INDEXES: &'static [GsiDecl];
    /// The table's attribute and index names, from `#[table(pk = "...", sk = "...",
    /// entity_type = "...", gsi1(name = "...", pk = "...", sk = "..."), ...)]`;
    /// [`AttributeNames::DEFAULT`] unless declared. Entities take them with
    /// `#[entity(table = ...)]` ([`Entity::NAMES`](crate::Entity::NAMES)); a table's entity that
    /// does not is a compile error.
    const NAMES: &'static AttributeNames = &AttributeNames::DEFAULT;
    /// The declared sort-key hierarchy, `#[table(hierarchy(Parent(Child, ...)))]`: pairs of
    /// positions in [`TableDef::ENTITIES`], parent first, whose parent's query on the table is
    /// meant to read the child's items (its `begins_with` on the sort key's literal prefix
    /// matches them, as `V#<version>` reads `V#<version>#COMMENT#<id>`); the entities of one
    /// hierarchy may read each other's items on the table (see
    /// [`TableLayout::declared_with_hierarchy`]). Empty unless declared.
    const HIERARCHY: &'static [(usize, usize)] = &[];
    /// The declared stream's view type, `#[table(stream = new_and_old_images)]` (or
    /// `keys_only`, `new_image`, `old_image`); `None` unless declared, and then the layout
    /// says nothing about the stream (see [`TableLayout::stream`]).
    const STREAM: Option<StreamViewType> = None;
    /// The generated enum with one variant per entity, decoding any item of the table by its
    /// entity type attribute.
    type Item: crate::schema::EntityEnum;

    /// The table's layout: key attributes and types, the declared indexes with their
    /// projections, TTL (see [`TableLayout::declared`]).
    ///
    /// # Errors
    /// None for a declaration that compiled (the derive ran the same checks); see
    /// [`TableLayout::declared`].
    fn layout() -> Result<TableLayout, Error> {
        let mut layout = TableLayout::declared_with_hierarchy(Self::ENTITIES, Self::INDEXES, Self::HIERARCHY)?;
        if let Some(e) = Self::ENTITIES.iter().find(|e| *e.names != *Self::NAMES) {
            return Err(Error::Invalid {
                reason: format!(
                    "entity {} does not use the attribute names of table {}: add `#[entity(table = {})]`",
                    e.name,
                    Self::NAME,
                    Self::NAME
                ),
            });
        }
        layout.names = Self::NAMES;
        if let Some(view) = Self::STREAM {
            layout = layout.stream(view);
        }
        Ok(layout)
    }
}

impl TableLayout {
    /// The layout of a table declared with its secondary indexes (what `#[derive(TableDef)]`
    /// builds): the layout of [`TableLayout::new`], holding exactly the declared indexes (an
    /// index no entity writes is created too, with the declared key types or `S`) with their
    /// projections. It runs the compile-time checks of `#[derive(TableDef)]` again
    /// (the compile-time layout checks of `#[derive(TableDef)]`), for declarations built by hand.
    ///
    /// # Errors
    /// [`Error::Invalid`] as [`TableLayout::new`], and when an entity writes an index that is
    /// not declared, a key type differs from the declared one, an index is declared twice, an
    /// LSI is numbered outside 1 to 5 or declares its partition key's type (it is `PK`), two
    /// entities can produce the same primary key, or one entity's default `begins_with` query
    /// reads another's items (`#[derive(TableDef)]`'s compile-time layout checks).
    pub fn declared(entities: &[&'static EntitySchema], indexes: &[GsiDecl]) -> Result<TableLayout, Error> {
        TableLayout::declared_with_hierarchy(entities, indexes, &[])
    }

    /// [`TableLayout::declared`] with a declared sort-key hierarchy ([`TableDef::HIERARCHY`]):
    /// `(parent, child)` pairs of positions in `entities`. A parent and its children share a
    /// sort-key prefix on purpose, so the queries of any two of them on the table may read each
    /// other's items (the parent's `begins_with` reads its children's; a child's query without
    /// sort-key parts has the same literal prefix).
    ///
    /// # Errors
    /// As [`TableLayout::declared`].
    pub fn declared_with_hierarchy(
        entities: &[&'static EntitySchema],
        indexes: &[GsiDecl],
        hierarchy: &[(usize, usize)],
    ) -> Result<TableLayout, Error> {
        use crate::schema::check as lc;
        let invalid = |reason: String| Err(Error::Invalid { reason });
        let mut layout = TableLayout::new(entities)?;
        let names = layout.names;
        for (i, d) in indexes.iter().enumerate() {
            if indexes[..i].iter().any(|o| o.index == d.index) {
                return invalid(format!("{} is declared twice", names.label(d.index)));
            }
            if d.index == Index::Primary {
                return invalid("the primary index is not a secondary index to declare".to_owned());
            }
            if let Index::Lsi(n) = d.index {
                if !(1..=crate::schema::MAX_LSI).contains(&n) {
                    return invalid(format!(
                        "LSIs are numbered 1 to {}: DynamoDB allows 5 local secondary indexes a table, not LSI{n}",
                        crate::schema::MAX_LSI
                    ));
                }
                if d.pk.is_some() {
                    return invalid(format!(
                        "{} is keyed on the table's {}, whose type the entities set; declare only its sort key type",
                        names.label(d.index),
                        names.pk
                    ));
                }
            }
        }
        let declared = |index: Index| indexes.iter().find(|d| d.index == index);
        for (i, a) in entities.iter().enumerate() {
            for g in a.multi_gsis {
                if declared(g.index).is_none() {
                    return invalid(format!(
                        "entity {} writes {}, which the table does not declare",
                        a.name,
                        names.label(g.index)
                    ));
                }
            }
            for g in a.secondary_indexes() {
                if declared(g.index).is_none() {
                    return invalid(format!(
                        "entity {} writes {}, which the table does not declare",
                        a.name,
                        names.label(g.index)
                    ));
                }
            }
            if a.inverted.is_some() && declared(Index::Inverted).is_none() {
                return invalid(format!(
                    "entity {} queries the inverted index, which the table does not declare",
                    a.name
                ));
            }
            for d in indexes {
                for (partition, declared_type) in [(true, d.pk), (false, d.sk)] {
                    let found = lc::key_type(a, d.index, partition);
                    if lc::key_types_differ(found, declared_type) {
                        let attr = if partition { names.pk_of(d.index) } else { names.sk_of(d.index) };
                        return invalid(format!(
                            "entity {} stores {attr} as {} but the table declares it {}",
                            a.name,
                            found.unwrap_or(KeyType::S),
                            declared_type.unwrap_or(KeyType::S)
                        ));
                    }
                }
            }
            for b in &entities[i + 1..] {
                if lc::keys_collide(a, b) {
                    return invalid(format!(
                        "entities {} and {} can produce the same primary key ({pk} `{}` / {sk} `{}` and {pk} `{}` / \
                         {sk} `{}`): one item would overwrite the other",
                        a.name,
                        b.name,
                        a.primary.pk.source,
                        a.primary.sk.source,
                        b.primary.pk.source,
                        b.primary.sk.source,
                        pk = names.pk,
                        sk = names.sk,
                    ));
                }
            }
            for (j, b) in entities.iter().enumerate() {
                if std::ptr::eq(*a, *b) {
                    continue;
                }
                // One declared hierarchy: a parent and its children, or two children of one parent.
                let member = |p: usize, x: usize| p == x || hierarchy.contains(&(p, x));
                let grouped = hierarchy.iter().any(|&(p, _)| member(p, i) && member(p, j));
                let all = std::iter::once(Index::Primary).chain(indexes.iter().map(|d| d.index));
                for index in all {
                    if lc::prefix_reads(a, b, index) && !(grouped && index == Index::Primary) {
                        let sk = lc::templates(a, index).map(|(_, sk)| sk.literal_prefix()).unwrap_or_default();
                        return invalid(format!(
                            "the query of entity {} on {index} adds begins_with({}, \"{sk}\"), which also matches \
                             the sort keys of entity {} in a partition both can share",
                            a.name,
                            names.sk_of(index),
                            b.name
                        ));
                    }
                }
            }
        }
        let mut gsis = Vec::new();
        let mut lsis = Vec::new();
        for d in indexes {
            if layout.multi_gsi(d.index).is_some() {
                if d.pk.is_some() || d.sk.is_some() {
                    return invalid(format!(
                        "{} is keyed on the entities' attributes, whose types the fields give; declare no key type for it",
                        names.label(d.index)
                    ));
                }
                layout.projections.insert(d.index, d.projection);
                continue;
            }
            match d.index {
                Index::Gsi(n) => gsis.push(n),
                Index::Lsi(n) => lsis.push(n),
                Index::Inverted => layout.inverted = true,
                Index::Primary => {}
            }
            // The inverted index and the LSIs' partition key are the table's `PK` / `SK`, whose
            // types the entities' primary keys set.
            if d.index != Index::Inverted {
                let pk = if d.index.is_local() { None } else { d.pk };
                for (attr, ty) in [(names.pk_of(d.index), pk), (names.sk_of(d.index), d.sk)] {
                    if let Some(ty) = ty {
                        layout.key_types.insert(attr, ty);
                    }
                }
            }
            layout.projections.insert(d.index, d.projection);
        }
        gsis.sort_unstable();
        lsis.sort_unstable();
        layout.gsis = gsis;
        layout.lsis = lsis;
        Ok(layout)
    }

    /// The projection of secondary index `index`: as declared, else [`Projection::All`].
    pub fn projection(&self, index: Index) -> Projection {
        self.projections.get(&index).copied().unwrap_or(Projection::All)
    }
}
/// The vector indexes of `entities`, by name: an index two entities declare must be the same
/// (same attribute, dimensions, distance and search schema), and no index name may be one of
/// the table's secondary index names.
fn vectors_of(entities: &[&'static EntitySchema]) -> Result<Vec<VectorIndex>, Error> {
    let mut out: Vec<(VectorIndex, &'static str)> = Vec::new();
    for e in entities {
        for v in e.vectors {
            let same = |a: &VectorIndex, b: &VectorIndex| {
                a.attribute == b.attribute
                    && a.dimensions == b.dimensions
                    && a.distance == b.distance
                    && a.hash.map(|h| (h.attribute, h.key_type)) == b.hash.map(|h| (h.attribute, h.key_type))
                    && a.filters
                        .iter()
                        .map(|f| (f.attribute, f.key_type))
                        .eq(b.filters.iter().map(|f| (f.attribute, f.key_type)))
            };
            match out.iter().find(|(o, _)| o.name == v.name) {
                Some((o, owner)) if !same(o, v) => {
                    return Err(Error::Invalid {
                        reason: format!(
                            "vector index {} is declared by {owner} on attribute {} ({}, {}) and by {} on \
                             attribute {} ({}, {}) with another shape; one index has one shape",
                            v.name,
                            o.attribute,
                            count(o.dimensions as usize, "dimension"),
                            o.distance,
                            e.name,
                            v.attribute,
                            count(v.dimensions as usize, "dimension"),
                            v.distance
                        ),
                    });
                }
                Some(_) => {}
                None => out.push((*v, e.name)),
            }
        }
    }
    for (v, owner) in &out {
        if let Some(o) = out.iter().find(|(o, _)| o.attribute == v.attribute && o.dimensions != v.dimensions) {
            return Err(Error::Invalid {
                reason: format!(
                    "vector indexes {} ({owner}) and {} ({}) are on attribute {} with {} and {} dimensions; DynamoDB \
                     requires the indexes of one vector attribute to agree on dimensions",
                    v.name, o.0.name, o.1, v.attribute, v.dimensions, o.0.dimensions
                ),
            });
        }
        let names = entities.first().map_or(&AttributeNames::DEFAULT, |e| e.names);
        if (1..=crate::schema::MAX_GSI).any(|n| names.index_name(Index::Gsi(n)) == Some(v.name))
            || (1..=crate::schema::MAX_LSI).any(|n| names.index_name(Index::Lsi(n)) == Some(v.name))
            || names.index_name(Index::Inverted) == Some(v.name)
        {
            return Err(Error::Invalid {
                reason: format!(
                    "vector index {} of {owner} has the name of one of the table's secondary indexes; DynamoDB's \
                     index names are one namespace",
                    v.name
                ),
            });
        }
    }
    let mut vectors: Vec<VectorIndex> = out.into_iter().map(|(v, _)| v).collect();
    vectors.sort_by_key(|v| v.name);
    Ok(vectors)
}

/// A read the application makes besides the generated queries, registered on the layout with
/// [`TableLayout::reads`] so that [`TableLayout::lint`] can review it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// What the read is for, such as `admin: every pending skill`.
    pub name: String,
    /// The entity type it returns.
    pub entity: &'static str,
    /// The index it reads.
    pub index: Index,
    /// Whether it is a `Scan` (else a `Query`).
    pub scan: bool,
    /// Whether it selects its entity with a `FilterExpression` on the type attribute
    /// (`_type = :t`).
    pub type_filter: bool,
}

impl Read {
    /// A `Scan` of the table for items of `entity` (see [`Read::on`] for an index).
    pub fn scan(name: impl Into<String>, entity: &'static str) -> Read {
        Read { name: name.into(), entity, index: Index::Primary, scan: true, type_filter: false }
    }

    /// A `Query` of one partition of `index` for items of `entity`, made outside the
    /// generated query functions.
    pub fn query(name: impl Into<String>, entity: &'static str, index: Index) -> Read {
        Read { name: name.into(), entity, index, scan: false, type_filter: false }
    }

    /// The index the read uses.
    #[must_use]
    pub fn on(mut self, index: Index) -> Read {
        self.index = index;
        self
    }

    /// The read selects its entity with a `FilterExpression` on the type attribute.
    #[must_use]
    pub fn filter_on_type(mut self) -> Read {
        self.type_filter = true;
        self
    }
}
