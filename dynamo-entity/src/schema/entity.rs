//! The [`Entity`] trait that `#[derive(Entity)]` implements, and the schema it describes.
//!
//! Every part of an [`EntitySchema`] is declared here, [`KeyFields`], [`SchemaVersion`] and
//! [`MultiKeyIndex`] included: the modules that read key fields back from keys, upgrade earlier
//! versions ([`evolve`](crate::schema::evolve)), check multi-attribute GSI keys
//! ([`multi_key`](crate::schema::multi_key)), check a table's entities and lay the table out
//! ([`TableLayout`](crate::schema::TableLayout)) build on these types, and this module imports
//! none of them.

use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, ItemError, Returned};
use crate::key::names::{AttributeNames, Index, PrimaryKey};
use crate::key::{KeyType, Template};
use crate::value::Item;

/// The key templates of one index as an entity uses it.
#[derive(Debug, Clone, Copy)]
pub struct IndexSchema {
    /// Which index.
    pub index: Index,
    /// The partition key template.
    pub pk: &'static Template,
    /// The sort key template.
    pub sk: &'static Template,
}

/// A struct field and the attribute that stores it.
#[derive(Debug, Clone, Copy)]
pub struct FieldSchema {
    /// The Rust field name.
    pub field: &'static str,
    /// The attribute name in the item.
    pub attribute: &'static str,
    /// Whether the field is an `Option`: as a key part, it can leave a GSI key absent.
    pub optional: bool,
    /// Whether the field is `#[entity(unique)]`: each of its values is claimed by a guard item
    /// (see [`unique`](crate::unique)).
    pub unique: bool,
    /// What the field writes as a key part ([`KeyPart::SHAPE`](crate::KeyPart::SHAPE)), for
    /// the collision checks; [`PartShape::Any`](crate::key::PartShape::Any) for a field in no
    /// key template.
    pub shape: crate::key::PartShape,
    /// Whether the field may be read back from a case-folded key (`#[entity(key_case =
    /// "lower")]`), taking the value in the key's case (`alice` for a stored `Alice`): the field
    /// is `#[entity(folded)]`, or an integer, whose text folding does not change. Other key
    /// fields of a case-folded key are read from their own attributes only.
    pub folded: bool,
    /// Whether the field is a key field written by one of the library's own part writers
    /// ([`KeyPart::WRITES_ESCAPED`](crate::KeyPart): strings and their newtypes, integers,
    /// `bool`, [`Timestamp`](crate::Timestamp), dates…), which give distinct values distinct
    /// texts. In a key that keeps case, that key's text then fixes the field's value (see
    /// `EntitySchema::fixed_by_primary_key`). `false` for other fields and hand-written parts.
    pub lossless: bool,
    /// The DynamoDB type the field is stored as ([`Attribute::STORED`](crate::Attribute::STORED)
    /// of its type; `N` for a time-to-live field), or `None` for a field written only inside its
    /// keys (`key_fields = "keys"`), which has no attribute of its own.
    pub stored: Option<crate::value::StoredType>,
    /// The field's own `#[entity(key_fields = "keys" | "attributes")]`, which overrides the
    /// entity's [`key_fields`](EntitySchema::key_fields) for this field; `None`: the entity's.
    pub key_fields: Option<KeyFields>,
    /// The attribute the field was stored in before a rename (`#[entity(alias = "title")]`):
    /// reads take it when the item has no attribute [`attribute`](Self::attribute) (first,
    /// under [`read_alias`](Self::read_alias)). Conditions, filters and queries name
    /// [`attribute`](Self::attribute) only. See
    /// [the guide](crate::guide::rolling_deploys#renaming-a-field-under-a-rolling-deploy).
    pub alias: Option<&'static str>,
    /// Whether every write stores the [`alias`](Self::alias) attribute too, with the same value
    /// (`#[entity(alias = "title", write_alias)]`, while code that reads `title` runs): items put
    /// hold both attributes, and an update that sets the field (or removes it) sets (or
    /// removes) both in the one request.
    pub write_alias: bool,
    /// Whether reads take the [`alias`](Self::alias) attribute first, and the field's own when
    /// the item has no alias (an `Option` field: the alias alone)
    /// (`#[entity(alias = "title", write_alias, read_alias)]`, the expand phase of a rename,
    /// while code of the old shape still writes `title`); only with
    /// [`write_alias`](Self::write_alias).
    pub read_alias: bool,
}

impl FieldSchema {
    /// A field stored in `attribute`, in no key template: every other property at its default
    /// (not optional, not unique, shape [`PartShape::Any`](crate::key::PartShape::Any), no
    /// stored type, no alias). The builder methods below set the rest, in constant evaluation:
    /// generated code writes `FieldSchema::new("name", "name").stored_as::<String>()`.
    ///
    /// ```
    /// use dynamo_entity::schema::FieldSchema;
    /// const NAME: FieldSchema = FieldSchema::new("name", "title").key::<String>().stored_as::<String>();
    /// assert_eq!((NAME.field, NAME.attribute, NAME.lossless), ("name", "title", true));
    /// assert_eq!(NAME.stored, Some(dynamo_entity::value::StoredType::S));
    /// ```
    pub const fn new(field: &'static str, attribute: &'static str) -> FieldSchema {
        FieldSchema {
            field,
            attribute,
            optional: false,
            unique: false,
            shape: crate::key::PartShape::Any,
            folded: false,
            lossless: false,
            stored: None,
            key_fields: None,
            alias: None,
            write_alias: false,
            read_alias: false,
        }
    }

    /// A key field of type `T`: its [`shape`](Self::shape) and [`lossless`](Self::lossless)
    /// from `T`'s [`KeyPart`](crate::KeyPart) constants.
    pub const fn key<T: crate::KeyPart + ?Sized>(self) -> FieldSchema {
        FieldSchema { shape: T::SHAPE, lossless: T::WRITES_ESCAPED, ..self }
    }

    /// Stored as `T` is: [`stored`](Self::stored) is `T`'s
    /// [`Attribute::STORED`](crate::Attribute::STORED).
    pub const fn stored_as<T: crate::Attribute>(self) -> FieldSchema {
        FieldSchema { stored: Some(T::STORED), ..self }
    }

    /// Stored as `stored` ([`StoredType::Unknown`](crate::value::StoredType::Unknown) for a
    /// serde field, `N` for a time to live).
    pub const fn stored(self, stored: crate::value::StoredType) -> FieldSchema {
        FieldSchema { stored: Some(stored), ..self }
    }

    /// An `Option` field ([`optional`](Self::optional)).
    pub const fn optional(self) -> FieldSchema {
        FieldSchema { optional: true, ..self }
    }

    /// An `#[entity(unique)]` field ([`unique`](Self::unique)).
    pub const fn unique(self) -> FieldSchema {
        FieldSchema { unique: true, ..self }
    }

    /// A field read back from a case-folded key ([`folded`](Self::folded)).
    pub const fn folded(self) -> FieldSchema {
        FieldSchema { folded: true, ..self }
    }

    /// The field's own `key_fields` choice ([`key_fields`](Self::key_fields)).
    pub const fn key_fields(self, key_fields: KeyFields) -> FieldSchema {
        FieldSchema { key_fields: Some(key_fields), ..self }
    }

    /// A renamed field's earlier attribute, and whether writes keep it and reads take it first
    /// ([`alias`](Self::alias), [`write_alias`](Self::write_alias),
    /// [`read_alias`](Self::read_alias)).
    pub const fn alias(self, alias: &'static str, write_alias: bool, read_alias: bool) -> FieldSchema {
        FieldSchema { alias: Some(alias), write_alias, read_alias, ..self }
    }

    /// The alias attribute that writes of this field keep in step: [`alias`](Self::alias)
    /// when [`write_alias`](Self::write_alias) is set.
    pub const fn written_alias(&self) -> Option<&'static str> {
        if self.write_alias { self.alias } else { None }
    }
}

/// An attribute with one fixed value on every item of an entity
/// (`#[entity(constant(__edb_v__ = "1"))]`), as other writers mark their items: ElectroDB 3's
/// `__edb_v__`, DynamoDB Toolbox's `_et`. Every write of the entity stores it; every read checks
/// it (an item without it, or with another value, does not decode:
/// [`Error::Decode`](crate::Error::Decode) naming the attribute).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantSchema {
    /// The attribute name.
    pub attribute: &'static str,
    /// The value it holds.
    pub value: ConstantValue,
}

/// The value of a [`ConstantSchema`]: a string, number or boolean literal of the declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstantValue {
    /// A string (`S`): `constant(__edb_v__ = "1")`.
    S(&'static str),
    /// A number (`N`) as written: `constant(_v = 2)`. Compared numerically on read (`2.0`
    /// equals `2`).
    N(&'static str),
    /// A boolean (`BOOL`): `constant(legacy = false)`.
    Bool(bool),
}

impl ConstantValue {
    /// The attribute value stored.
    pub fn to_attribute(self) -> AttributeValue {
        match self {
            ConstantValue::S(s) => AttributeValue::S(s.to_owned()),
            ConstantValue::N(n) => AttributeValue::N(n.to_owned()),
            ConstantValue::Bool(b) => AttributeValue::Bool(b),
        }
    }

    /// Whether `stored`, read from an item, is this value (numbers compared as numbers).
    pub fn matches(self, stored: &AttributeValue) -> bool {
        match (self, stored) {
            (ConstantValue::S(a), AttributeValue::S(b)) => a == b,
            (ConstantValue::N(a), AttributeValue::N(b)) => {
                crate::value::compare_numbers(a, b) == std::cmp::Ordering::Equal
            }
            (ConstantValue::Bool(a), AttributeValue::Bool(b)) => a == *b,
            _ => false,
        }
    }
}

impl fmt::Display for ConstantValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstantValue::S(s) => write!(f, "{s:?}"),
            ConstantValue::N(n) => write!(f, "{n}"),
            ConstantValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// What `#[derive(Entity)]` knows about an entity: its type name, key templates and fields.
#[derive(Debug)]
pub struct EntitySchema {
    /// The entity type name stored in the type attribute ([`AttributeNames::entity_type`]).
    pub name: &'static str,
    /// The Rust type's name (`UserOrder`), for messages: entities that share one type value
    /// (`name = "ORDER"`) are told apart by it.
    pub rust_name: &'static str,
    /// How decode errors name the entity ([`Error::Decode`](crate::Error::Decode)): the type
    /// name, or `UserOrder (type ORDER)` when the Rust type's name differs from it.
    pub label: &'static str,
    /// The attribute and index names of the entity's table ([`Entity::NAMES`]).
    pub names: &'static AttributeNames,
    /// The primary key templates.
    pub primary: IndexSchema,
    /// The GSIs the entity writes, by number.
    pub gsis: &'static [IndexSchema],
    /// The inverted index, for an `#[entity(inverted)]` entity: [`Index::Inverted`] with the
    /// primary sort key template as its partition key and the primary partition key template as
    /// its sort key. It writes no attributes (see [`Index::Inverted`]).
    pub inverted: Option<IndexSchema>,
    /// The LSIs the entity writes, by number: [`Index::Lsi`] with the primary partition key
    /// template as its partition key and the entity's `lsi<n>` template as its sort key. Only
    /// the sort key attribute `LSI<n>SK` is written; the item is in the index when every part of
    /// that template is present.
    pub lsis: &'static [IndexSchema],
    /// The GSIs keyed on the entity's own attributes (`#[entity(gsi6(pk(a, b), sk(c)))]`), by
    /// number; they write no key attribute of their own (see
    /// [`multi_key`](crate::schema::multi_key)).
    pub multi_gsis: &'static [MultiKeyIndex],
    /// The non-key fields.
    pub fields: &'static [FieldSchema],
    /// The `#[entity(version)]` field: the optimistic-locking version that every write checks
    /// and bumps (see [`versioning`](crate::versioning)).
    pub version: Option<VersionSchema>,
    /// The `#[entity(created_at)]` field, set to the current time by a create (see
    /// [`versioning`](crate::versioning)).
    pub created_at: Option<FieldSchema>,
    /// The `#[entity(updated_at)]` field, set to the current time by every write (see
    /// [`versioning`](crate::versioning)).
    pub updated_at: Option<FieldSchema>,
    /// The `#[entity(ttl)]` field, stored as a number of seconds since the Unix epoch, the
    /// format of DynamoDB's time to live (see [`versioning`](crate::versioning)).
    pub ttl: Option<FieldSchema>,
    /// Whether writes store key fields as attributes of their own too (see [`KeyFields`]).
    pub key_fields: KeyFields,
    /// The declared schema version (`#[entity(schema(version = N, from = Prev))]`), stamped
    /// on every item written; `None` for an entity without versions (see
    /// [`evolve`](crate::schema::evolve)).
    pub schema_version: Option<SchemaVersion>,
    /// The attributes with one fixed value on every item (`#[entity(constant(...))]`), written
    /// by every write and checked by every read.
    pub constants: &'static [ConstantSchema],
    /// The vector indexes of the entity's `Vec<f32>` fields (`#[entity(vector(...))]`), searched
    /// with `SearchVectors` (see [`query::vector`](crate::query::vector)).
    pub vectors: &'static [crate::schema::vector::VectorIndex],
}

/// Whether `template` has a shard segment (`<shard(field, N)>`).
const fn sharded(template: &Template) -> bool {
    let mut i = 0;
    while i < template.segments.len() {
        if matches!(template.segments[i], crate::key::Segment::Shard { .. }) {
            return true;
        }
        i += 1;
    }
    false
}

/// The `#[entity(version)]` field of an entity.
#[derive(Debug, Clone, Copy)]
pub struct VersionSchema {
    /// The Rust field name.
    pub field: &'static str,
    /// The attribute that stores it (a DynamoDB number).
    pub attribute: &'static str,
    /// The highest version the field's integer type holds (`u64::MAX` for wider types): a
    /// write that would store a higher one is refused before sending.
    pub max: u64,
}

impl EntitySchema {
    /// The templates for `index`, if this entity uses it.
    pub fn index(&self, index: Index) -> Option<&IndexSchema> {
        match index {
            Index::Primary => Some(&self.primary),
            Index::Gsi(_) => self.gsis.iter().find(|g| g.index == index),
            Index::Inverted => self.inverted.as_ref(),
            Index::Lsi(_) => self.lsis.iter().find(|l| l.index == index),
        }
    }

    /// The `#[entity(unique)]` fields, whose values are claimed by guard items (see
    /// [`unique`](crate::unique)).
    pub fn unique_fields(&self) -> impl Iterator<Item = &FieldSchema> + '_ {
        self.fields.iter().filter(|f| f.unique)
    }

    /// Whether any field is `#[entity(unique)]`: then every write of the entity goes through a
    /// transaction that keeps its guard items in step.
    /// A `const fn`: generic code asks it at compile time (see `unique::has_unique`).
    pub const fn has_unique(&self) -> bool {
        let mut i = 0;
        while i < self.fields.len() {
            if self.fields[i].unique {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether any partition key template of the entity has a shard segment
    /// (`<shard(field, N)>`): only then does generated code make a sharded query
    /// ([`QuerySpec::sharded`](crate::query::QuerySpec::sharded)). A `const fn`, which generic
    /// code asks at compile time.
    pub(crate) const fn has_sharded_index(&self) -> bool {
        if sharded(self.primary.pk) || matches!(&self.inverted, Some(i) if sharded(i.pk)) {
            return true;
        }
        let mut i = 0;
        while i < self.gsis.len() {
            if sharded(self.gsis[i].pk) {
                return true;
            }
            i += 1;
        }
        let mut i = 0;
        while i < self.lsis.len() {
            if sharded(self.lsis[i].pk) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether a write of this entity has attributes that the library maintains: a version or
    /// a `created_at` / `updated_at` timestamp (see [`versioning`](crate::versioning)).
    pub fn has_maintained(&self) -> bool {
        self.version.is_some() || self.created_at.is_some() || self.updated_at.is_some()
    }

    /// The alias attribute that writes of the field stored in `attribute` also write
    /// (`#[entity(alias = "...", write_alias)]`), if any.
    pub fn written_alias_of(&self, attribute: &str) -> Option<&'static str> {
        self.fields.iter().find(|f| f.attribute == attribute).and_then(FieldSchema::written_alias)
    }

    /// Whether `field` is an `Option` (unknown fields count as optional).
    pub fn is_optional(&self, field: &str) -> bool {
        self.fields.iter().find(|f| f.field == field).is_none_or(|f| f.optional)
    }

    /// Every key attribute this entity may write (under its [`names`](Self::names)), with its
    /// DynamoDB type: `PK` / `SK`, each
    /// GSI's pair, then each LSI's sort key (its partition key is `PK`).
    pub fn key_attributes(&self) -> impl Iterator<Item = (&'static str, KeyType)> + '_ {
        std::iter::once(&self.primary)
            .chain(self.gsis)
            .flat_map(|i| [(self.names.pk_of(i.index), i.pk.key_type), (self.names.sk_of(i.index), i.sk.key_type)])
            .chain(self.lsis.iter().map(|l| (self.names.sk_of(l.index), l.sk.key_type)))
    }

    /// Every secondary index this entity writes keys of: its GSIs, then its LSIs (the inverted
    /// index, which writes nothing, is not among them).
    pub fn secondary_indexes(&self) -> impl Iterator<Item = &IndexSchema> + '_ {
        self.gsis.iter().chain(self.lsis)
    }
}

/// Whether an entity stores its key fields as attributes of their own besides its keys:
/// `#[entity(key_fields = "attributes")]` (the default) or `#[entity(key_fields = "keys")]`.
///
/// Reads take a key field from the key that holds it whenever the item has no attribute of that
/// name, whichever is chosen. Under [`KeyFields::Keys`] they also prefer the key when the
/// item has both (see there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFields {
    /// Every field is written as an attribute, key fields included (`PK = USER#alice` and
    /// `id = alice`): filters, conditions and projections can name any field.
    Attributes,
    /// A key field that a key always holds (see [`EntitySchema::held_by_key`]) is written only
    /// inside that key, as most hand-written single-table designs do: `PK = USER#alice`, no
    /// `id` attribute. Conditions and filters on such a field find no attribute; updates of it
    /// rewrite only the keys.
    ///
    /// Reads take such a field from the key that holds it even when the item also has an
    /// attribute of that name (written by another client): the key is what updates rewrite
    /// and what the indexes follow. An update leaves that attribute with its old value, as
    /// DynamoDB has no update action that sets an attribute only where it exists (`SET`
    /// would add it to every item); a client that reads the attribute needs
    /// [`KeyFields::Attributes`], whose updates rewrite the key and the attribute together.
    /// The attribute is read only when no key that holds the field is on the item or reads
    /// back.
    Keys,
}

/// An entity's declared schema version (`#[entity(schema(version = N, from = Prev))]`), in
/// [`EntitySchema::schema_version`].
#[derive(Debug, Clone, Copy)]
pub struct SchemaVersion {
    /// The attribute that holds the version on each item ([`SCHEMA_ATTRIBUTE`](crate::schema::evolve::SCHEMA_ATTRIBUTE)
    /// by default).
    pub attribute: &'static str,
    /// The version this struct is (1 or more); every write of it stores this number.
    pub version: u32,
    /// The oldest version the chain of `from` structs declares: this struct's own when it has
    /// no `from`. An item without the attribute reads as this version.
    pub oldest: u32,
    /// The Rust name of the struct of the previous version (`from`), `None` for the oldest.
    pub from: Option<&'static str>,
    /// The schema of that struct, `None` for the oldest: the chain of earlier versions, whose
    /// attributes a migration of an item stored at one of them checks (see
    /// [`written_attributes`](crate::schema::evolve::written_attributes)).
    pub previous: Option<&'static EntitySchema>,
}

impl PartialEq for SchemaVersion {
    /// Equal when every field is, the previous version's schema compared by its struct's name.
    fn eq(&self, other: &SchemaVersion) -> bool {
        self.attribute == other.attribute
            && self.version == other.version
            && self.oldest == other.oldest
            && self.from == other.from
            && self.previous.map(|s| s.rust_name) == other.previous.map(|s| s.rust_name)
    }
}

impl Eq for SchemaVersion {}

/// One key attribute of a multi-attribute GSI: the entity's field and the attribute storing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiKeyAttr {
    /// The Rust field name.
    pub field: &'static str,
    /// The attribute name in the item (after `rename` / `rename_all`).
    pub attribute: &'static str,
    /// Its DynamoDB type, from the field type's [`KeyAttribute`](crate::schema::multi_key::KeyAttribute)
    /// implementation.
    pub key_type: KeyType,
}

/// A GSI keyed on several of the item's own attributes, as one entity declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiKeyIndex {
    /// Which GSI ([`Index::Gsi`]); its index name is the table's name for that number.
    pub index: Index,
    /// The partition key attributes, in key schema order (1 to 4).
    pub pk: &'static [MultiKeyAttr],
    /// The sort key attributes, in key schema order (0 to 4).
    pub sk: &'static [MultiKeyAttr],
}

impl MultiKeyIndex {
    /// Every key attribute: the partition key's, then the sort key's.
    pub fn attributes(&self) -> impl Iterator<Item = &'static MultiKeyAttr> + 'static {
        self.pk.iter().chain(self.sk)
    }

    /// How many key attributes the index has, both sides together.
    pub const fn key_count(&self) -> usize {
        self.pk.len() + self.sk.len()
    }

    /// Key attribute `k` in key schema order: the partition key's, then the sort key's
    /// (`k < key_count()`), usable in constant evaluation where [`attributes`](Self::attributes)
    /// is not.
    pub const fn key(&self, k: usize) -> &'static MultiKeyAttr {
        if k < self.pk.len() { &self.pk[k] } else { &self.sk[k - self.pk.len()] }
    }

    /// The key schema as text, `tenant (S), region (S) | status (S), createdAt (S)`, for
    /// messages and reports.
    pub fn describe(&self) -> String {
        let side = |attrs: &[MultiKeyAttr]| {
            attrs.iter().map(|a| format!("{} ({})", a.attribute, a.key_type)).collect::<Vec<_>>().join(", ")
        };
        if self.sk.is_empty() { side(self.pk) } else { format!("{} | {}", side(self.pk), side(self.sk)) }
    }
}

/// A struct stored as items of one entity type in a single table. Implemented by
/// `#[derive(Entity)]`, whose attributes follow.
///
/// An entity is `Send + Sync`: the future of every operation is `Send` (it can be spawned), and
/// it holds the value written by reference.
///
/// # `#[derive(Entity)]`
///
/// On a struct with named fields. Struct attributes, `#[entity(...)]`:
///
/// | key | meaning |
/// |---|---|
/// | `pk = "..."`, `sk = "..."` | the primary key templates (both required), stored in `PK` / `SK` |
/// | `gsi1 = "..."` … `gsi20 = "..."` | a GSI's partition key template, stored in `GSI<n>PK` |
/// | `gsi1_sk = "..."` … `gsi20_sk = "..."` | its sort key template (required with `gsiN`), stored in `GSI<n>SK` |
/// | `gsi1(pk(a, b), sk(c, d))` … `gsi20(...)` | a native multi-attribute GSI: keyed on the item's own fields (1 to 4 in `pk(...)`, 0 to 4 in `sk(...)`, their attribute names after renames), no synthetic key attribute; the field types give the key types (`String`, integers, `Timestamp`, `KeyPart` types: `S` or `N`; `Option` for a sparse index). Generates `E::gsi<n>(a, b)` returning a builder with `<field>_eq`, `_lt`, `_le`, `_gt`, `_ge`, `_between`, `_begins_with` per sort key field; see [`schema::multi_key`](crate::schema::multi_key) |
/// | `lsi1 = "..."` … `lsi5 = "..."` | an LSI's sort key template, stored in `LSI<n>SK`; its partition key is the entity's `pk` (stored in `PK`); generates `E::lsi<n>(..)` |
/// | `name = "..."` | the entity type name stored in `_type` (default: the struct's name) |
/// | `inverted` | the entity is also read from its sort key's end, through the table's inverted index `INVERTED` (partition key `SK`, sort key `PK`); generates `E::inverted(..)` |
/// | `rename_all = "camelCase"` | the attribute names of fields without `rename`, by serde's case rules: `lowercase`, `UPPERCASE`, `snake_case`, `SCREAMING_SNAKE_CASE`, `kebab-case`, `SCREAMING-KEBAB-CASE`, `camelCase`, `PascalCase` (`created_at` is stored as `createdAt`) |
/// | `key_fields = "keys"` | key fields are written only inside the keys that hold them (`PK = USER#alice`, no `id` attribute), as most hand-written single-table designs store them; the default `"attributes"` also writes each as an attribute of its own. Reads take a key field from its key whenever the item has no attribute of that name, either way |
/// | `key_case = "lower"` | the whole key is lowercased, literals and values (`"upper"`: uppercased; default `"as_is"`), as ElectroDB writes keys; queries fold the values they are given. A key field is read back from such a key only when it is `#[entity(folded)]` (it then takes the value in the key's case: `alice` for `Alice`) or an integer; other key fields are read from their attributes. With `key_fields = "keys"`, every such field must be one of those (a compile error names the field otherwise) |
/// | `key_values = "verbatim"` | values are written into keys as they are, not escaped (default `"escaped"`: the delimiter and `%` become `%23` and `%25`, or `%7C` for `\|`), to match writers that never escape; a value holding the delimiter is refused before sending ([`KeyPartError::Delimiter`](crate::key::KeyPartError::Delimiter)) |
/// | `delimiter = "\|"` | the character between the segments of every key of the entity (default `#`), for keys such as `USER\|123`: templates are split at it, values escape or refuse it, `begins_with` prefixes end at it. One ASCII punctuation character other than `%`, `<`, `>`, `(`, `)`, `:`, `,` and `_`; the entities of one table share one delimiter (a compile error of `#[derive(TableDef)]` otherwise) |
/// | `constant(__edb_v__ = "1")` | attributes with one fixed value (a string, number or `true`/`false` literal) on every item, as ElectroDB's `__edb_v__` or DynamoDB Toolbox's `_et`: every write stores them, every read checks them (missing or another value: [`Error::Decode`] naming the attribute); several may be listed |
/// | `table = AppTable` | the entity belongs to the `#[derive(TableDef)]` type `AppTable` and uses its attribute and index names (`<AppTable as TableDef>::NAMES`) for every item, key, query, guard item and cursor; without it, the default names `PK`, `SK`, `_type`, `GSI<n>PK` … of this page |
/// | `schema(version = 3, from = SkillV2)` | the entity's schema version, stored on every item it writes (in `_schema`, or `attribute = "..."`); `from` names the `#[derive(Entity)]` struct of the version before (same `name`, same primary key templates) and `impl From<SkillV2> for Skill` is the upgrade step. Every read decodes any declared version and upgrades it in memory (see [`from_item`](Entity::from_item)); an item without the attribute reads as the oldest; a newer one is [`Error::SchemaVersion`]; [`Table::upgrade`](crate::Table::upgrade) writes an upgraded item back on the condition that it is unchanged. See [`evolve`](crate::schema::evolve) |
///
/// Field attributes, `#[entity(...)]` on a field:
///
/// | key | meaning |
/// |---|---|
/// | `rename = "attr"` | the attribute name |
/// | `alias = "title"` | the attribute the field was stored in before a rename: a read takes the field's own attribute, or `title` when the item has none (an item written before the rename); writes store the field's own attribute only. Conditions, filters and index keys name the field's own attribute: a condition on `subject` does not see an old item's `title`. Not on a field written only inside its keys, nor on the `version` field; it names no other field's attribute. See [renaming a field](crate::guide::rolling_deploys#renaming-a-field-under-a-rolling-deploy) |
/// | `alias = "title", write_alias` | the expand phase of a rename: as `alias`, and every write stores `title` too, with the same value (`put`, `create`, `replace` items hold both; `update().set(..)` sets both in one `UpdateItem`, and a `None` removes both), so that old code, which reads `title`, sees every write. `write_alias` needs `alias` |
/// | `alias = "title", write_alias, read_alias` | the expand phase while code of the old shape still runs: as `write_alias`, and reads take `title` first (every instance writes it then; old code does not write `subject`), `subject` when the item has no `title`; an `Option` field reads `title` alone (old code removing it made the value `None`). `read_alias` needs `write_alias` |
/// | `serde` | stores a nested type through serde |
/// | `unique` | a value only one item of the entity may hold, kept by a guard item (see [`unique`](crate::unique)) |
/// | `version` | optimistic locking (see [`versioning`](crate::versioning)) |
/// | `created_at`, `updated_at` | times the library maintains (see [`versioning`](crate::versioning)) |
/// | `ttl` | the time-to-live attribute, stored as epoch seconds (see [`versioning`](crate::versioning)) |
/// | `folded` | a key field read back from a case-folded key, in that key's case (see `key_case`) |
/// | `key_fields = "keys"` or `"attributes"` | the entity's `key_fields` choice for this field alone: `"keys"` stores it only inside the keys that hold it (a compile error when no key always does), `"attributes"` also as an attribute of its own |
/// | `vector(index = "...", dimensions = N, distance = cosine, hash = f, filters(g, h))` | a vector index on this `Vec<f32>` or `Option<Vec<f32>>` field (see "Vector indexes" below): `distance` is `cosine`, `euclidean` or `dot_product`; `hash` and `filters` are optional |
///
/// `version`, `created_at`, `updated_at` and `ttl` are each on at most one field.
///
/// # Indexes
///
/// GSIs are the table's, not the entity's: `gsi1` of every entity is the same index `GSI1` on
/// `GSI1PK` / `GSI1SK` (overloaded). So the entities that share a number must agree on its key
/// types (a single numeric placeholder is `N`, anything else `S`); `Table::create_table` refuses
/// entities that disagree. A GSI may instead be keyed natively on up to four of the item's own
/// attributes per side: see [`schema::multi_key`](crate::schema::multi_key). A GSI partition key
/// may be spread over `N` partitions with a segment `<shard(field, N)>`: see
/// [`query::shard`](crate::query::shard).
///
/// **The inverted index.** `#[entity(pk = "USER#<user_id>", sk = "WISHLIST#<sku>", inverted)]`
/// gives the table a GSI named `INVERTED` ([`Index::Inverted`]) whose partition key is the table's
/// `SK` and whose sort key is its `PK`, so it writes no attributes of its own. A many-to-many
/// relationship stored as an adjacency list (one item per edge, in the partition of one end, keyed
/// on the id of the other end) is then read from both ends: `WishlistItem::query(&user)` lists a
/// user's products, and `WishlistItem::inverted(&sku)` the users who wish for a product (`SK =
/// WISHLIST#<sku>`, sorted by `PK`), with sort-key conditions on the partition key's parts
/// (`.sk_between(&low, &high)` on user ids) and cursors as for any query. `inverted(..)` takes
/// every part of the sort key (the whole `SK` is the index's partition key), so the sort key needs
/// a placeholder, and the partition key, which becomes the index's sort key, at most six. The
/// index is not sparse: every item of the table has a `PK` and an `SK`, so every item is in it
/// (projection ALL). Its cost: each write of any item is also a write in the index (write capacity
/// and storage double), and a `PK` is limited to a sort key's 1,024 bytes instead of 2,048,
/// checked before sending for the keys of `inverted` entities (DynamoDB refuses the writes of
/// other entities whose `PK` is longer).
///
/// **Local secondary indexes.** `#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 =
/// "<placed_at>")]` gives the table the LSI `LSI1` ([`Index::Lsi`]), keyed on the table's `PK` and
/// the attribute `LSI1SK`, which holds the `lsi1` template (a single numeric placeholder is `N`,
/// anything else `S`; a sort key has at most six placeholders and a constant one is a compile
/// error). `Order::lsi1(&user_id)` takes the parts of the primary partition key and queries that
/// item collection sorted by `LSI1SK`, with sort-key conditions on the template's parts
/// (`.sk_between(&from, &to)`), cursors, both orders and strongly consistent reads
/// (`.consistent_read()`), which GSIs do not offer. Like a GSI, it is sparse: an `Option` part
/// that is `None` leaves `LSI1SK` out of the item, and the item out of the index; an update that
/// sets a field of the template rewrites `LSI1SK` alone (setting every field of the template, as
/// for GSI keys), and one that makes a part `None` removes it. `lsiN` numbers the table's index,
/// shared by every entity that uses it, which must agree on its type. DynamoDB's rules: at most 5
/// LSIs a table, created only with the table (`CreateTable`), never added or removed later; and in
/// a table with an LSI, the items of one partition key value (table items and index entries
/// together) may hold at most 10 GB, after which writes to that `PK` fail. Each write of an item
/// that is in an LSI also writes its index entry (write capacity as for a GSI entry, see
/// [`capacity`](crate::capacity)).
///
/// **Vector indexes.** `#[entity(vector(index = "DocsByMeaning", dimensions = 3, distance =
/// cosine, hash = tenant, filters(lang)))]` on a `Vec<f32>` field gives the table the vector index
/// `DocsByMeaning` (`VectorIndexes` of `CreateTable`, of the CloudFormation export, of
/// [`Table::diff`](crate::Table::diff) and [`Table::apply`](crate::Table::apply)): 1 to 4,096
/// dimensions, DynamoDB's distance function, and a search schema of the entity's own string,
/// number or binary fields, at most one `hash` (every search names its value, as a query names
/// its partition) and any number of `filters` (a search may ask for equal values). An item
/// whose field is `None` is not in the index. Every write checks the vector before sending: as
/// many elements as `dimensions`, each finite ([`Error::Encode`] naming the item's key). The
/// derive generates `E::search_<field>(vector)`, sent with [`Table::search`](crate::Table::search):
///
/// ```no_run
/// use dynamo_entity::{Entity, Table};
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(pk = "DOC#<id>", sk = "META")]
/// struct Doc {
///     id: String,
///     tenant: String,
///     lang: String,
///     #[entity(vector(index = "DocsByMeaning", dimensions = 3, distance = cosine, hash = tenant, filters(lang)))]
///     embedding: Vec<f32>,
/// }
///
/// # async fn f(table: Table) -> dynamo_entity::Result<()> {
/// let page = table
///     .search(Doc::search_embedding(vec![0.1, 0.9, 0.0]))
///     .filter(Doc::TENANT, &"acme".to_owned())
///     .filter(Doc::LANG, &"en".to_owned())
///     .page_items(10)
///     .send()
///     .await?;
/// for hit in &page.hits {
///     println!("{} at {}", hit.item.id, hit.score); // nearest first
/// }
/// # Ok(())
/// # }
/// ```
///
/// `SearchVectors` returns its `TopK` nearest items, at most 100, and no `LastEvaluatedKey`: the
/// page's cursor (`.after(page.cursor)`) asks for the results so far and as many more, so each
/// page reads, and is billed for, every page before it, and a search ends at its 100th result.
/// In the item, a vector is a list of numbers and is sized as one (item limit, write units,
/// storage: [`capacity`](crate::capacity)); a vector index stores it at 4 bytes a dimension
/// ([`billed_item_size`](crate::schema::vector::billed_item_size)). DynamoDB Local has no vector search
/// ([`Error::Unsupported`]); the embedded engine of `dynamo-entity-local` has. See
/// [`schema::vector`](crate::schema::vector) and [`query::vector`](crate::query::vector).
///
/// # Key fields from the keys
///
/// A field that fills a placeholder and has no attribute on the item is decoded from the first key
/// that holds it (`PK`, `SK`, each GSI's keys, each LSI's sort key), by reversing the template and
/// the part's encoding. An item with neither the attribute nor such a key is an [`Error::Decode`]
/// naming the entity, the attribute, the item's key and the keys that would hold the field. With
/// `key_fields = "keys"`, a field is left out of the item when a key always holds it: a primary
/// key field, or a field of a GSI or LSI whose other parts are not `Option`s (a `None` part leaves
/// the whole index key out); updates of such a field rewrite only its keys, and conditions or
/// filters on it find no attribute.
///
/// # What is generated
///
/// For the `Skill` of the crate's first page:
///
/// * `Skill::key(&id)`: the typed primary key ([`Key`]), arguments in template order (`&str` for
///   `String` fields).
/// * `Skill::query(&id)` (primary index) and `Skill::gsi1(category)`, `Skill::gsi4(&status)`: the
///   partition to query ([`QuerySpec`](crate::query::QuerySpec)), typed by the sort key's fields
///   for the sort-key conditions of [`QueryRequest`](crate::query::QueryRequest); `E::lsiN(..)`
///   for each LSI, with the primary partition key's arguments.
/// * `Skill::STATUS`, `Skill::DOWNLOADS`, …: typed field handles ([`Field`](crate::Field)) for
///   updates and conditions; primary key fields have no setter.
/// * `E::search_<field>(vector)` for a field with a vector index: the search to send with
///   [`Table::search`](crate::Table::search) ([`VectorSearch`](crate::query::vector::VectorSearch)).
/// * `impl Entity for Skill`: the item encoder and decoder ([`to_item`](Entity::to_item),
///   [`from_item`](Entity::from_item)).
///
/// # Compile errors
///
/// Each points at the offending tokens (the cases are in the repository's `tests/ui/`): a
/// placeholder that names no field, a key part of a type that cannot sort (a float, a `Vec`), an
/// `Option` in the primary key, a malformed template. The checks across the entities of one table
/// (keys that can collide, undeclared indexes, key attribute types) are those of
/// [`TableDef`](crate::TableDef).
///
/// # The other derives
///
/// `#[derive(KeyPart)]` makes a newtype (`struct SkillId(String)`) or a field-less enum usable as
/// a key part and an attribute ([`KeyPart`](crate::KeyPart)); enum variants are stored in
/// `snake_case` unless `#[key_part(rename_all = "...")]` or `#[key_part(rename = "...")]` say
/// otherwise. `#[derive(Collection)]` decodes an item collection into a struct (`SkillPage { skill:
/// Skill, reviews: Vec<Review> }`), and `#[derive(EntityEnum)]` any item into an enum of entity
/// types (a table-level enum); see [`collection`](crate::collection). Each derive implements the
/// trait of its name.
pub trait Entity: Sized + Send + Sync + 'static {
    /// The entity type name, stored in [`TYPE_ATTRIBUTE`](crate::key::names::TYPE_ATTRIBUTE) on every item.
    const TYPE: &'static str;

    /// The entity's key templates and fields, usable in constant evaluation: the checks of
    /// `#[derive(TableDef)]` across the entities of one table read it at compile time.
    const SCHEMA: &'static EntitySchema;

    /// The attribute and index names of the entity's table: [`AttributeNames::DEFAULT`] unless
    /// the entity says `#[entity(table = AppTable)]`, which takes the names that
    /// `#[derive(TableDef)]` declared for `AppTable` (`<AppTable as TableDef>::NAMES`). Every
    /// item, key, query and guard item of the entity uses these names.
    const NAMES: &'static AttributeNames = &AttributeNames::DEFAULT;

    /// The entities of the table declaration that the entity names with
    /// `#[entity(table = AppTable)]` (`<AppTable as TableDef>::ENTITIES`); `None` without one.
    /// A handle that was not given the table's layout ([`Table::new`](crate::Table::new)
    /// rather than [`Table::declared`](crate::Table::declared)) reads the entity's items among
    /// these: an item of another entity that shares its type value is passed over, and one that
    /// fits the key templates of none of them is reported ([`Error::KeyFitsNoEntity`]).
    const TABLE_ENTITIES: Option<&'static [&'static EntitySchema]> = None;

    /// The secondary indexes of the table declaration that the entity names with
    /// `#[entity(table = AppTable)]` (`<AppTable as TableDef>::INDEXES`), with their
    /// projections; `None` without one. A read through an index whose projection holds
    /// everything the entity is decoded from takes the index items as they are, even on a
    /// handle made by [`Table::new`](crate::Table::new); see [`owner`](crate::owner).
    const TABLE_INDEXES: Option<&'static [crate::schema::projection::GsiDecl]> = None;

    /// The entity's key templates and fields ([`Entity::SCHEMA`]).
    fn schema() -> &'static EntitySchema {
        Self::SCHEMA
    }

    /// The item: every non-`None` field, `PK` / `SK`, every GSI key and LSI sort key whose
    /// parts are all present, and the type attribute.
    ///
    /// # Errors
    /// [`Error::Key`] when a key cannot be encoded, [`Error::Encode`] for a value DynamoDB
    /// cannot hold. Nothing is sent in either case.
    fn to_item(&self) -> Result<Item, Error>;

    /// Decodes an item of this entity type.
    ///
    /// # Errors
    /// [`Error::WrongEntity`] when the type attribute names another entity, [`Error::Decode`]
    /// naming the attribute, the expected and found type and the item's key; also
    /// [`Error::Decode`] on `PK` or `SK` when the item's key is not the one its key fields give
    /// (an item written or changed by another tool), so that no value decodes whose writes
    /// would go to another item.
    ///
    /// For a versioned entity (`schema(version = N, from = Prev)`), an item of an earlier
    /// declared version (or without a version: the oldest) is decoded as that version's struct
    /// and upgraded through each `From` step; a version the entity does not declare is
    /// [`Error::SchemaVersion`] (see [`evolve`](crate::schema::evolve)).
    fn from_item(item: &Item) -> Result<Self, Error>;

    /// The primary key of this value.
    ///
    /// # Errors
    /// [`Error::Key`] when it cannot be encoded.
    fn primary_key(&self) -> Result<PrimaryKey, Error>;

    /// The item's secondary index keys, `(attribute, value)`: each GSI's partition and sort key,
    /// then each LSI's sort key (`LSI<n>SK`; its partition key is `PK`). Sparse keys whose parts
    /// are not all present are left out.
    ///
    /// # Errors
    /// [`Error::Key`] when a present key cannot be encoded.
    fn gsi_keys(&self) -> Result<Vec<(&'static str, AttributeValue)>, Error>;
}

/// A typed primary key of entity `E`, from the generated `E::key(...)`.
///
/// Encoding errors (an empty part, a key over DynamoDB's size limit) are kept and returned by
/// the operation that uses the key, before any request is sent.
pub struct Key<E> {
    pub(crate) key: Result<PrimaryKey, Error>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> Key<E> {
    /// Wraps an encoded key (or the error that encoding it gave).
    pub fn new(key: Result<PrimaryKey, Error>) -> Key<E> {
        Key { key, _entity: PhantomData }
    }

    /// The encoded key.
    ///
    /// # Errors
    /// The encoding error, if any.
    pub fn encoded(&self) -> Result<&PrimaryKey, &Error> {
        self.key.as_ref()
    }

    /// Consumes the key, returning the encoded key.
    ///
    /// # Errors
    /// The encoding error, if any.
    pub fn into_encoded(self) -> Result<PrimaryKey, Error> {
        self.key
    }
}

/// A copy of the key; an encoding error is copied with it (the same kind and message).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamo_entity::schema::{Key, PrimaryKey};
/// # struct Skill;
/// let key = Key::<Skill>::new(Ok(PrimaryKey {
///     pk: AttributeValue::S("SKILL#1".into()),
///     sk: AttributeValue::S("META".into()),
/// }));
/// let copy = key.clone();
/// assert_eq!(copy.encoded().ok(), key.encoded().ok());
/// ```
impl<E> Clone for Key<E> {
    fn clone(&self) -> Key<E> {
        Key::new(match &self.key {
            Ok(k) => Ok(k.clone()),
            Err(e) => Err(e.copy_of_build_error()),
        })
    }
}

impl<E> fmt::Debug for Key<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Ok(k) => write!(f, "Key({k})"),
            Err(e) => write!(f, "Key(error: {e})"),
        }
    }
}

/// The item a write that DynamoDB applied returned, decoded as `E`: a decode problem is
/// reported inside the success, never as an `Err` (see [`Returned`]).
pub(crate) fn returned<E: Entity>(item: Item) -> Returned<E> {
    match E::from_item(&item) {
        Ok(value) => Returned::Decoded(value),
        Err(error) => Returned::Undecodable(ItemError::new(E::NAMES, item, error)),
    }
}

/// As [`returned`], for a write that may have found no item (`None`: nothing was there).
pub(crate) fn returned_option<E: Entity>(item: Option<Item>) -> Returned<Option<E>> {
    match item.filter(|i| !i.is_empty()) {
        None => Returned::Decoded(None),
        Some(item) => returned::<E>(item).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::Key;
    use crate::error::Error;
    use crate::key::KeyError;

    #[test]
    fn a_copied_key_keeps_its_encoding_error() {
        let missing = KeyError::Missing { entity: "Skill", attribute: "PK", template: "SKILL#<id>", field: "id" };
        let key = Key::<()>::new(Err(Error::Key(missing.clone())));
        let copy = key.clone();
        match copy.into_encoded() {
            Err(Error::Key(k)) => assert_eq!(k, missing),
            other => panic!("expected the key error, got {other:?}"),
        }
        assert_eq!(format!("{key:?}"), "Key(error: Skill.id is None, but PK (`SKILL#<id>`) needs it)");
    }

    /// Write and query paths ask these in constant evaluation, to leave out the code of unique
    /// fields and sharded queries for entities without them.
    #[test]
    fn unique_fields_and_sharded_templates_are_known_in_constant_evaluation() {
        use crate::key::{Cardinality, KeyStyle, KeyType, Segment, Template};
        use crate::schema::check::fixtures::{U64, USER, shaped, tpl, with_fields};
        use crate::schema::{EntitySchema, FieldSchema, Index, IndexSchema};

        const fn unique(mut f: FieldSchema) -> FieldSchema {
            f.unique = true;
            f
        }
        const JOBS: Template = Template {
            source: "JOBS#<stage>#<shard(id, 8)>",
            segments: &[Segment::Literal("JOBS"), Segment::Field("stage"), Segment::Shard { field: "id", count: 8 }],
            key_type: KeyType::S,
            cardinality: Cardinality::High,
            style: KeyStyle::DEFAULT,
        };
        const GSIS: [IndexSchema; 1] = [IndexSchema { index: Index::Gsi(1), pk: &JOBS, sk: tpl!("<id>") }];
        const fn with_gsi(mut s: EntitySchema) -> EntitySchema {
            s.gsis = &GSIS;
            s
        }
        const PLAIN: EntitySchema = with_fields(USER, &[shaped("n", U64)]);
        const GUARDED: EntitySchema = with_fields(USER, &[shaped("n", U64), unique(shaped("email", U64))]);
        const SHARDED: EntitySchema = with_gsi(USER);
        const ANSWERS: [bool; 6] = [
            PLAIN.has_unique(),
            GUARDED.has_unique(),
            SHARDED.has_unique(),
            PLAIN.has_sharded_index(),
            GUARDED.has_sharded_index(),
            SHARDED.has_sharded_index(),
        ];
        assert_eq!(ANSWERS, [false, true, false, false, false, true]);
    }
}
