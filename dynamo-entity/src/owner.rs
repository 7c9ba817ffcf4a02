//! Whose item is this? The one place that decides, for an item read from the table, from a
//! secondary index or from a stream image, which entity it is, or why it is no entity's.
//!
//! Every read path asks it: get, query, multi-attribute GSI query, scan, item collection, the
//! table's item enum, batch get, transactional get, stream records and the whole-item reads of
//! projected indexes. Every write's entity guard asks it too (`other_entity`). Nothing else
//! in the library tells entities apart.
//!
//! # The rule
//!
//! An item's *type value* is its entity type attribute when that is a string the library does
//! not reserve. A table without a type attribute (`#[table(entity_type = none)]`) has none: its
//! items are told apart by their keys alone.
//!
//! | the item | a read of entity `E` |
//! |---|---|
//! | type value `E`, primary key of `E`'s templates' shape | `E`'s: decoded |
//! | type value `E` shared by several entities, key of another's shape | that entity's: passed over |
//! | type value `E`, key of no entity's shape | reported: [`Error::KeyFitsNoEntity`] |
//! | another entity's type value, key of that entity's shape | that entity's: passed over |
//! | another entity's type value, key of only `E`'s shape (the table's entities known) | reported: [`Error::WrongEntity`] |
//! | no type value (absent, a number, `NULL`, a reserved value at a key that is not the library's), key of `E`'s shape | reported: [`Error::WrongEntity`] |
//! | no type value, key beginning as `E`'s templates do but of no entity's shape | reported: [`Error::KeyFitsNoEntity`] |
//! | the library's own item: a reserved type value at the library's own key | passed over, unreported |
//!
//! Strict reads fail on the first reported item; lenient ones return it as an
//! [`ItemError`](crate::error::ItemError) with its key; stream decoding does the same per image.
//!
//! # The library's own items
//!
//! | item | partition key | sort key | type value |
//! |---|---|---|---|
//! | uniqueness guard | `UNIQUE#<entity>#<attribute>#<value>` | `UNIQUE` | `_unique` |
//! | migration record | `_MIGRATION#<id>` | `RUN`, `SEGMENT#…`, `STEP`, … | `_migration` |
//! | runner registry | `_MIGRATIONS` | `ID#<id>` | `_migration` |
//!
//! Both the key and (in a typed table) the type value must match: an item another writer put
//! at an entity's key with the type value `_unique` is no guard, and reads report it.
//!
//! # Index items
//!
//! An index whose projection leaves attributes out returns partial items. A read takes such an
//! item whole (one `BatchGetItem` for the page) only when the index's projection cannot hold
//! what the entity is decoded from; never because an `Option` field is
//! `None`. The projection comes from the handle's layout, else from the table declaration the
//! entity names, else from the table itself (`DescribeTable`, once per handle, asked only when
//! an index item lacks nothing but `Option` fields' attributes).

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::key::Template;
use crate::key::names::{AttributeNames, Index};
use crate::key::{KeyType, Segment};
use crate::schema::reserved::{
    GUARD_PREFIX, GUARD_SK, GUARD_TYPE, MIGRATION_PREFIX, MIGRATION_REGISTRY, MIGRATION_TYPE, is_guard_partition,
};
use crate::schema::{EntitySchema, Projection};
use crate::value::Item;

// --- type values ---------------------------------------------------------------------------

/// The value of `type_attribute` on `item`, if it is a string.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamo_entity::{Item, owner::type_of_named};
///
/// let item = Item::from([("_type".to_owned(), AttributeValue::S("User".to_owned()))]);
/// assert_eq!(type_of_named(&item, "_type"), Some("User"));
/// assert_eq!(type_of_named(&item, "kind"), None);
/// ```
#[inline]
pub fn type_of_named<'a>(item: &'a Item, type_attribute: &str) -> Option<&'a str> {
    match item.get(type_attribute) {
        Some(AttributeValue::S(t)) => Some(t),
        _ => None,
    }
}

/// Whether `type_value` is one the library reserves for its own items (`_unique`,
/// `_migration`). No entity has it (the derive refuses such names).
pub fn is_reserved_type(type_value: &str) -> bool {
    type_value == GUARD_TYPE || type_value == MIGRATION_TYPE
}

/// The item's type value under `names`: its type attribute when that is a string the library
/// does not reserve; `None` in a table without a type attribute.
#[inline]
fn type_value<'a>(item: &'a Item, names: &AttributeNames) -> Option<&'a str> {
    if !names.has_entity_type() {
        return None;
    }
    type_of_named(item, names.entity_type).filter(|t| !is_reserved_type(t))
}

// --- the library's own items -----------------------------------------------------------------

/// Whether `item` is one of the library's own items (a uniqueness guard or a migration record,
/// see the [module](self) documentation), which belong to no entity and which reads pass over
/// unreported. Its keys must be the library's; in a table with a type attribute, its type value
/// must also be the one reserved for that kind of item.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamo_entity::schema::AttributeNames;
/// use dynamo_entity::{Item, owner::is_library_item};
///
/// let item = |pk: &str, sk: &str, ty: &str| -> Item {
///     [("PK", pk), ("SK", sk), ("_type", ty)]
///         .into_iter()
///         .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.to_owned())))
///         .collect()
/// };
/// let names = AttributeNames::DEFAULT;
/// assert!(is_library_item(&item("UNIQUE#User#email#a", "UNIQUE", "_unique"), &names));
/// // The reserved type value at an entity's key is no guard item.
/// assert!(!is_library_item(&item("USER#1", "META", "_unique"), &names));
/// ```
pub fn is_library_item(item: &Item, names: &AttributeNames) -> bool {
    let type_attribute = names.has_entity_type().then_some(names.entity_type);
    is_library_item_under(item, names.pk, names.sk, type_attribute)
}

/// [`is_library_item`] under the key attributes `pk` and `sk` and the type attribute
/// `type_attribute` (`None` for a table without one).
pub fn is_library_item_under(item: &Item, pk: &str, sk: &str, type_attribute: Option<&str>) -> bool {
    let Some(AttributeValue::S(pk)) = item.get(pk) else { return false };
    let guard_sk = || matches!(item.get(sk), Some(AttributeValue::S(sk)) if sk == GUARD_SK);
    let migration = || pk.starts_with(MIGRATION_PREFIX) || pk == MIGRATION_REGISTRY;
    // Without a type attribute, the key is all there is: a guard's partition key has its exact
    // shape. With one, the reserved type and the guard's key space (`UNIQUE#…`, `UNIQUE`) say it.
    let Some(type_attribute) = type_attribute else { return is_guard_partition(pk) && guard_sk() || migration() };
    match type_of_named(item, type_attribute) {
        Some(GUARD_TYPE) => {
            pk.strip_prefix(GUARD_PREFIX).is_some_and(|rest| rest.starts_with(crate::key::DELIMITER)) && guard_sk()
        }
        Some(MIGRATION_TYPE) => migration(),
        _ => false,
    }
}

// --- key shapes ------------------------------------------------------------------------------

/// Whether `item`'s primary key has `schema`'s key templates' shape, with each field's part
/// shape (`V#LATEST` is not a `V#<version>` of a `u64`): how entities that share a type value,
/// or the entities of a table without a type attribute, are told apart.
#[inline]
pub(crate) fn fits_key(schema: &EntitySchema, item: &Item) -> bool {
    primary_fits(schema, item, true)
}

/// Whether `item`'s primary key has the segments of `schema`'s templates, whatever its parts
/// hold: an item meant as the entity's by a writer whose parts have another form (a time as
/// `2026-05-01T12:00:04Z`), which reads report rather than pass over.
fn fits_loosely(schema: &EntitySchema, item: &Item) -> bool {
    primary_fits(schema, item, false)
}

fn primary_fits(schema: &EntitySchema, item: &Item, shaped: bool) -> bool {
    let shape = |field: &str| match schema.fields.iter().find(|f| f.field == field) {
        Some(f) if shaped => f.shape,
        _ => crate::key::PartShape::Any,
    };
    let fits = |attribute: &str, t: &Template| item.get(attribute).is_some_and(|v| t.fits_shaped(v, shape));
    fits(schema.names.pk, schema.primary.pk) && fits(schema.names.sk, schema.primary.sk)
}

/// Whether the first segment of each of `item`'s primary key attributes begins as `schema`'s
/// templates do: equal to a leading literal segment (`ORDER` for `ORDER#<day>#<id>`), or
/// starting with the literal text before a leading placeholder (`o` for `o<num>`). `false` for
/// a template that begins with a bare placeholder, which any key fits.
fn starts_as(schema: &EntitySchema, item: &Item) -> bool {
    let starts = |template: &Template, attribute: &str| {
        let Some(AttributeValue::S(s)) = item.get(attribute) else { return false };
        let first = s.split(template.style.delimiter).next().unwrap_or_default();
        match template.segments.first() {
            Some(Segment::Literal(l)) => first == *l,
            Some(Segment::Part { prefix, suffix, .. }) if !prefix.is_empty() => {
                first.len() > prefix.len() + suffix.len() && first.starts_with(prefix) && first.ends_with(suffix)
            }
            _ => false,
        }
    };
    starts(schema.primary.pk, schema.names.pk) && starts(schema.primary.sk, schema.names.sk)
}

/// Whether `item`'s primary key has the shape of `schema`'s primary key templates by their
/// key types and segments: how an index item without a type attribute (a `KEYS_ONLY`
/// projection) is told to be the entity's.
fn has_primary_shape(schema: &EntitySchema, item: &Item) -> bool {
    let fits = |template: &Template, attribute: &str| match (item.get(attribute), template.key_type) {
        (Some(AttributeValue::S(s)), KeyType::S) => template.parse(s).is_ok(),
        (Some(AttributeValue::N(_)), KeyType::N) => true,
        (Some(AttributeValue::B(b)), KeyType::B) => !b.as_ref().is_empty(),
        _ => false,
    };
    fits(schema.primary.pk, schema.names.pk) && fits(schema.primary.sk, schema.names.sk)
}

// --- one entity's items ----------------------------------------------------------------------

/// Whether `item` is one of `schema`'s: its type value names the entity (in a table without a
/// type attribute, always) and its primary key has the entity's templates' shape.
pub fn owns(schema: &EntitySchema, item: &Item) -> bool {
    let typed = !schema.names.has_entity_type() || type_value(item, schema.names) == Some(schema.name);
    typed && fits_key(schema, item)
}

/// Whether an item read by a query or scan of `schema` (with no knowledge of other entities
/// sharing its type value) is the entity's: its type value names it; in a table without a type
/// attribute, its primary key has the entity's templates' shape. The re-read of a migration
/// step asks this of the item it read again.
pub(crate) fn is_type(item: &Item, schema: &EntitySchema) -> bool {
    let names = schema.names;
    if !names.has_entity_type() {
        return fits_key(schema, item);
    }
    type_value(item, names) == Some(schema.name)
}

/// The error of an item that a read of `schema` finds among its own but that no entity
/// describes, so that it is reported rather than passed over; `None` for the entity's items,
/// another entity's and the library's own. `known` holds the table's entities (`None` when
/// the reading handle does not know them); `index` is the index read. See the
/// [module](self) documentation's table.
pub(crate) fn misfit(
    schema: &'static EntitySchema,
    known: Option<&[&'static EntitySchema]>,
    index: Index,
    item: &Item,
) -> Option<Error> {
    let names = schema.names;
    if is_library_item(item, names) {
        return None;
    }
    let all = known.unwrap_or(&[]);
    let typed = names.has_entity_type();
    // A type value that names an entity: with the table's entities known, one of theirs;
    // otherwise any, since an entity the handle does not know may have it.
    let value =
        type_value(item, names).filter(|t| known.is_none() || *t == schema.name || all.iter().any(|e| e.name == *t));
    let mut candidates: Vec<&EntitySchema> = match value {
        // Another entity's type value. With the table's entities known, an item whose key
        // fits this entity's templates and none of that type's is this key's item of the
        // wrong type, as a get of it says.
        Some(t) if t != schema.name => {
            let misplaced =
                known.is_some() && fits_key(schema, item) && !all.iter().any(|e| e.name == t && fits_key(e, item));
            return misplaced.then(|| Error::wrong_entity(schema.name, item, names));
        }
        Some(_) => {
            if fits_key(schema, item) || all.iter().any(|e| owns(e, item)) {
                return None;
            }
            all.iter().copied().filter(|e| e.name == schema.name).collect()
        }
        None => {
            if !starts_as(schema, item) && !fits_loosely(schema, item) {
                return None;
            }
            if fits_key(schema, item) {
                // Untyped: this entity's item. Typed: this entity's key without its type.
                return typed.then(|| Error::wrong_entity(schema.name, item, names));
            }
            // Unknown entities: in a typed table, an item without its type read from a
            // secondary index is most often another entity's, whose type the index's
            // projection leaves out; on the table, every entity's items carry their type.
            let projected = known.is_none() && typed && index != Index::Primary;
            if projected || all.iter().any(|e| fits_key(e, item)) {
                return None;
            }
            all.iter().copied().filter(|e| starts_as(e, item)).collect()
        }
    };
    if !candidates.iter().any(|e| e.rust_name == schema.rust_name && e.name == schema.name) {
        candidates.insert(0, schema);
    }
    Some(key_fits_no_entity(item, &candidates, names))
}

/// [`Error::KeyFitsNoEntity`] for `item`, which belongs by its type value (or the first
/// segment of its keys) to `entities`, under the attribute names `names`: the entities are
/// listed with their primary key templates.
pub(crate) fn key_fits_no_entity(item: &Item, entities: &[&EntitySchema], names: &AttributeNames) -> Error {
    let found = type_of_named(item, names.entity_type).filter(|_| names.has_entity_type()).map(str::to_owned);
    let entities = entities
        .iter()
        .map(|e| {
            format!("{} ({} `{}`, {} `{}`)", e.rust_name, names.pk, e.primary.pk.source, names.sk, e.primary.sk.source)
        })
        .collect();
    Error::KeyFitsNoEntity { found, entities, key: names.describe_key(item) }
}

// --- reads of one entity through an index ----------------------------------------------------

/// How an item of the entity read came back from the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// Whole (or as much of it as decoding needs): decode it.
    Whole,
    /// Partial (a projection that leaves out what the entity is decoded from, or no type
    /// attribute): read it whole by its primary key.
    Projected,
    /// The index's projection is not known and the item lacks an attribute an `Option` field
    /// would be stored in: absent as `None`, or left out by the projection. The reader learns
    /// the table's projections once and asks again; it never reads such an item twice.
    Unsure,
}

/// What a reader of entity `E` knows of the table, for [`claim`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct View<'a> {
    /// The table's entities, when known.
    pub(crate) known: Option<&'a [&'static EntitySchema]>,
    /// Whether other entities of the table share `E`'s type value.
    pub(crate) shared: bool,
    /// The projection of the index read, when known (`All` for the primary index).
    pub(crate) projection: Option<Projection>,
}

/// Whether `item`, read from `index`, is one of `schema`'s and how it is taken, or the error
/// that reports it (see [`misfit`]); `Ok(None)` for another entity's item or the library's own.
///
/// - An item of the entity (its type value names it, and when `shared`, its primary key has
///   the entity's templates' shape; in a table without a type attribute, its key has that
///   shape) read from the primary index, or from a secondary index whose projection holds
///   everything the entity is decoded from, is [`Found::Whole`]; through any other projection
///   it is [`Found::Projected`]. With the projection unknown, an item that holds every
///   attribute the entity reads is whole, one that lacks a required field's attribute is
///   projected, and one that lacks only an `Option` field's is [`Found::Unsure`].
/// - An item without a type attribute read from a secondary index, whose primary key has the
///   shape of the entity's templates, is [`Found::Projected`].
pub(crate) fn claim(
    schema: &'static EntitySchema,
    view: View<'_>,
    index: Index,
    item: &Item,
) -> Result<Option<Found>, Error> {
    match claim_own(schema, view, index, item) {
        Some(found) => Ok(Some(found)),
        None => misfit(schema, view.known, index, item).map_or(Ok(None), Err),
    }
}

/// [`claim`] without the report: `None` for any item that is not the entity's.
pub(crate) fn claim_own(schema: &EntitySchema, view: View<'_>, index: Index, item: &Item) -> Option<Found> {
    let names = schema.names;
    let ours = if names.has_entity_type() {
        match item.get(names.entity_type) {
            Some(AttributeValue::S(t)) => t == schema.name && (!view.shared || fits_key(schema, item)),
            Some(_) => false,
            None if index != Index::Primary && has_primary_shape(schema, item) => return Some(Found::Projected),
            None => false,
        }
    } else {
        fits_key(schema, item)
    };
    if !ours {
        return None;
    }
    if index == Index::Primary {
        return Some(Found::Whole);
    }
    Some(taken(schema, index, view.projection, item))
}

/// How an item of `schema` read from secondary index `index` is taken, by the index's
/// `projection` when known, else by what the item holds.
pub(crate) fn taken(schema: &EntitySchema, index: Index, projection: Option<Projection>, item: &Item) -> Found {
    match projection {
        Some(p) if covers(schema, index, p) => Found::Whole,
        Some(_) => Found::Projected,
        None => match holds(schema, index, item) {
            Holds::Everything => Found::Whole,
            Holds::LessThanRequired => Found::Projected,
            Holds::AllButOptional => Found::Unsure,
        },
    }
}

// --- what an index projection holds of an entity ----------------------------------------------

/// Whether `projection` of `index` holds everything an item of `schema` is decoded from (see
/// [`required`]): its fields' attributes, except those a key always projected into the index
/// holds in a form they are read back from (the primary key, and the index's own keys), and
/// its constant attributes, which decoding checks.
pub(crate) fn covers(schema: &EntitySchema, index: Index, projection: Projection) -> bool {
    let listed = match projection {
        Projection::All => return true,
        Projection::KeysOnly => &[][..],
        Projection::Include(listed) => listed,
    };
    required(schema, index).all(|a| listed.contains(&a))
}

/// Whether `item`, read from secondary index `index` of a table whose projections are not
/// known, holds every attribute an item of `schema` is decoded from ([`required`]): then it
/// decodes to the whole entity whatever the projection is.
#[cfg(test)]
pub(crate) fn complete(schema: &EntitySchema, index: Index, item: &Item) -> bool {
    holds(schema, index, item) == Holds::Everything
}

/// What an index item read through a projection that is not known holds of what `schema` is
/// decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// Every attribute: it decodes to the whole entity whatever the projection is.
    Everything,
    /// Not the attribute of a field that is always stored (or a constant attribute): the
    /// projection leaves it out.
    LessThanRequired,
    /// Every attribute but some of `Option` fields: each is `None`, or left out by the
    /// projection; the item alone cannot tell.
    AllButOptional,
}

/// [`Holds`] of `item` for `schema`, read from `index`.
pub(crate) fn holds(schema: &EntitySchema, index: Index, item: &Item) -> Holds {
    let mut out = Holds::Everything;
    for (attribute, optional) in required_fields(schema, index) {
        if !item.contains_key(attribute) {
            if !optional {
                return Holds::LessThanRequired;
            }
            out = Holds::AllButOptional;
        }
    }
    out
}

/// The attributes decoding an item of `schema` read from `index` needs, besides the keys:
/// each field's attribute, unless the entity's writes leave it out (a key-only field) or a
/// key in every index item (the primary key, `index`'s own keys) holds the field in a form it
/// is read back from; and each constant attribute (`#[entity(constant(...))]`), which the
/// decoder checks: an item without it fails to decode, so a projection that leaves a constant
/// out does not cover the entity, although its value is known from the declaration.
fn required(schema: &EntitySchema, index: Index) -> impl Iterator<Item = &'static str> + '_ {
    required_fields(schema, index).map(|(attribute, _)| attribute)
}

/// [`required`], each attribute with whether it is an `Option` field's (absent when `None`).
fn required_fields(schema: &EntitySchema, index: Index) -> impl Iterator<Item = (&'static str, bool)> + '_ {
    let own = schema.index(index);
    let keys = [Some(schema.primary.pk), Some(schema.primary.sk), own.map(|i| i.pk), own.map(|i| i.sk)];
    let in_keys = move |field: &str| keys.into_iter().flatten().any(|t| schema.readable(t, field).is_some());
    let fields = schema.fields.iter().filter(move |f| !schema.key_only(f.field) && !in_keys(f.field));
    fields.map(|f| (f.attribute, f.optional)).chain(schema.constants.iter().map(|c| (c.attribute, false)))
}

// --- entity enums and collections ------------------------------------------------------------

/// Which of `schemas` (an entity enum's or collection's entities, in declaration order) owns
/// `item`, whose type attribute holds `found`: the index of that entity; `Ok(None)` for the
/// library's own items and those of entities not listed; the error that reports an item at a
/// listed entity's key that no listed entity can claim (see the [module](self) documentation).
///
/// - By type value and key shape first. When only one listed entity has the type value, its key
///   is not matched here: the entity's decoding checks it once and reports a key of another
///   shape.
/// - In a typed table, an item of a type value several listed entities share whose key fits
///   none of them is [`Error::KeyFitsNoEntity`]; an item without a type value naming a listed
///   entity at a listed entity's key is [`Error::WrongEntity`] for it.
/// - In a table without a type attribute, an item whose keys begin as some listed entities'
///   templates do, but fit none, is [`Error::KeyFitsNoEntity`] listing them.
#[inline]
pub fn dispatch(
    item: &Item,
    found: Option<&str>,
    names: &AttributeNames,
    schemas: &[&'static EntitySchema],
) -> Result<Option<usize>, Error> {
    if !names.has_entity_type() {
        if let Some(i) = schemas.iter().position(|s| fits_key(s, item)) {
            return Ok(Some(i));
        }
        if is_library_item(item, names) {
            return Ok(None);
        }
        let beginning: Vec<&EntitySchema> =
            schemas.iter().copied().filter(|s| starts_as(s, item) || fits_loosely(s, item)).collect();
        return if beginning.is_empty() { Ok(None) } else { Err(key_fits_no_entity(item, &beginning, names)) };
    }
    let found = found.filter(|t| !is_reserved_type(t));
    if let Some(t) = found {
        let mut sharing = schemas.iter().enumerate().filter(|(_, s)| s.name == t);
        match (sharing.next(), sharing.next()) {
            (Some((i, _)), None) => return Ok(Some(i)),
            (Some(_), Some(_)) => {
                if let Some(i) = schemas.iter().position(|s| s.name == t && fits_key(s, item)) {
                    return Ok(Some(i));
                }
                let sharing: Vec<&EntitySchema> = schemas.iter().copied().filter(|s| s.name == t).collect();
                return Err(key_fits_no_entity(item, &sharing, names));
            }
            (None, _) => {}
        }
    }
    if is_library_item(item, names) {
        return Ok(None);
    }
    // No listed entity's type value: at a listed entity's key (by its parts' shapes, else by
    // its segments alone), that key's item of the wrong type, as a get of it says.
    let owner = schemas.iter().find(|s| fits_key(s, item)).or_else(|| schemas.iter().find(|s| fits_loosely(s, item)));
    match owner {
        Some(s) => Err(Error::wrong_entity(s.name, item, names)),
        None => Ok(None),
    }
}

// --- decoding and writes ---------------------------------------------------------------------

/// Checks that the type attribute value `found` (picked from `item`) names `entity`: every
/// decode of an item into an entity checks it.
///
/// # Errors
/// [`Error::WrongEntity`] naming the type found and the item's key under `names`.
#[inline(always)]
pub(crate) fn check_type(
    item: &Item,
    found: Option<&AttributeValue>,
    names: &AttributeNames,
    entity: &'static str,
) -> Result<(), Error> {
    match found {
        Some(AttributeValue::S(t)) if t == entity => Ok(()),
        _ => Err(Error::wrong_entity(entity, item, names)),
    }
}

/// The entity type of `item` when it is not `entity`: `Some(Some(text))`, or `Some(None)` for
/// an item without a type attribute; `None` when it is `entity`, and always in a table without
/// a type attribute. A write whose condition failed asks this of the item DynamoDB returned
/// (`ReturnValuesOnConditionCheckFailure = ALL_OLD`) before it reports
/// [`Error::WrongEntity`].
pub(crate) fn other_entity(names: &AttributeNames, item: &Item, entity: &str) -> Option<Option<String>> {
    if !names.has_entity_type() {
        return None;
    }
    match item.get(names.entity_type) {
        Some(AttributeValue::S(t)) if t == entity => None,
        other => Some(other.map(crate::key::names::describe_value)),
    }
}

/// The entity guard every conditional write of an item of `entity` carries, written to `out`
/// with its placeholders in `ph`: what DynamoDB checks, on the server, of the item a write would
/// touch. Its answer when the guard fails is read by [`other_entity`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guard {
    /// `#t = :v`: the item is `entity`'s (in a table without a type attribute, the key
    /// templates tell entities apart, and the guard is `attribute_exists(PK)`).
    Is,
    /// `(attribute_not_exists(PK) OR #t = :v)`: a write that may create the item.
    AbsentOrIs,
    /// `attribute_exists(PK) AND #t = :v`: a write that requires the item.
    PresentAndIs,
}

/// Writes `guard` for `entity` under `names` to `out` (see [`Guard`]).
pub(crate) fn push_guard(
    guard: Guard,
    ph: &mut crate::expr::Placeholders,
    names: &AttributeNames,
    entity: &'static str,
    out: &mut String,
) {
    let is = |ph: &mut crate::expr::Placeholders, out: &mut String| {
        if !names.has_entity_type() {
            out.push_str("attribute_exists(");
            ph.push_name(names.pk, out);
            out.push(')');
            return;
        }
        ph.push_name(names.entity_type, out);
        out.push_str(" = ");
        ph.push_value(AttributeValue::S(entity.to_owned()), out);
    };
    match guard {
        Guard::Is => is(ph, out),
        Guard::AbsentOrIs => {
            out.push_str("(attribute_not_exists(");
            ph.push_name(names.pk, out);
            out.push_str(") OR ");
            is(ph, out);
            out.push(')');
        }
        Guard::PresentAndIs => {
            out.push_str("attribute_exists(");
            ph.push_name(names.pk, out);
            out.push_str(") AND ");
            is(ph, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{ConstantSchema, ConstantValue};

    const UNTYPED_NAMES: AttributeNames = AttributeNames::DEFAULT.without_entity_type();
    const DEFAULT_NAMES: AttributeNames = AttributeNames::DEFAULT;

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned()))).collect()
    }

    #[test]
    fn library_items_need_the_librarys_key_and_type_where_the_table_has_a_type_attribute() {
        let cases = [
            (item(&[("PK", "UNIQUE#User#email#a"), ("SK", "UNIQUE"), ("_type", "_unique")]), true),
            (item(&[("PK", "_MIGRATION#m1"), ("SK", "RUN"), ("_type", "_migration")]), true),
            (item(&[("PK", "_MIGRATIONS"), ("SK", "ID#m1"), ("_type", "_migration")]), true),
            // An entity's type at a guard's key, and no type at a migration's.
            (item(&[("PK", "UNIQUE#User#email#a"), ("SK", "UNIQUE"), ("_type", "User")]), false),
            (item(&[("PK", "_MIGRATION#m1"), ("SK", "RUN")]), false),
            // A reserved type at an entity's key, or at the other reserved kind's key.
            (item(&[("PK", "ACCT#a1"), ("SK", "ROW#1"), ("_type", "_unique")]), false),
            (item(&[("PK", "ACCT#a1"), ("SK", "ROW#1"), ("_type", "_migration")]), false),
            (item(&[("PK", "_MIGRATION#m1"), ("SK", "RUN"), ("_type", "_unique")]), false),
            (item(&[("PK", "UNIQUE#User#email#a"), ("SK", "UNIQUE"), ("_type", "_migration")]), false),
        ];
        for (i, (item, want)) in cases.iter().enumerate() {
            assert_eq!(is_library_item(item, &DEFAULT_NAMES), *want, "case {i}: {item:?}");
        }
    }

    #[test]
    fn library_items_are_told_by_key_where_the_table_has_no_type_attribute() {
        let cases = [
            (item(&[("PK", "UNIQUE#User#email#a%23b"), ("SK", "UNIQUE")]), true),
            (item(&[("PK", "UNIQUE#User#email#a"), ("SK", "META")]), false),
            (item(&[("PK", "UNIQUE#User#email"), ("SK", "UNIQUE")]), false),
            (item(&[("PK", "UNIQUE#User#email#a#b"), ("SK", "UNIQUE")]), false),
            (item(&[("PK", "UNIQUE#User#email#a%zz"), ("SK", "UNIQUE")]), false),
            (item(&[("PK", "_MIGRATION#m1"), ("SK", "SEGMENT#0000001")]), true),
            (item(&[("PK", "_MIGRATIONS"), ("SK", "ID#m1")]), true),
            (item(&[("PK", "USER#1"), ("SK", "META")]), false),
            (item(&[("SK", "UNIQUE")]), false),
        ];
        for (i, (item, want)) in cases.iter().enumerate() {
            assert_eq!(is_library_item(item, &UNTYPED_NAMES), *want, "case {i}: {item:?}");
        }
    }

    #[test]
    fn a_reserved_type_value_is_no_type_value() {
        let names = AttributeNames::DEFAULT;
        assert_eq!(type_value(&item(&[("_type", "_unique")]), &names), None);
        assert_eq!(type_value(&item(&[("_type", "_migration")]), &names), None);
        assert_eq!(type_value(&item(&[("_type", "User")]), &names), Some("User"));
        assert_eq!(type_value(&item(&[("_type", "User")]), &UNTYPED_NAMES), None);
    }

    #[test]
    fn constant_attributes_must_be_projected_too() {
        let mut s = crate::schema::check::failed_schema("E");
        assert!(covers(&s, Index::Gsi(1), Projection::KeysOnly), "nothing to read");
        s.constants = &[ConstantSchema { attribute: "__edb_v__", value: ConstantValue::S("1") }];
        assert!(!covers(&s, Index::Gsi(1), Projection::KeysOnly));
        assert!(!covers(&s, Index::Gsi(1), Projection::Include(&["name"])));
        assert!(covers(&s, Index::Gsi(1), Projection::Include(&["name", "__edb_v__"])));
        assert!(covers(&s, Index::Gsi(1), Projection::All));
    }

    /// A handle without the layout decides from the item (`complete`) as one with it decides
    /// from the projection (`covers`): an `INCLUDE` projection that leaves the constant
    /// attribute out covers nothing, because decoding checks the constant and fails on an item
    /// without it; so the index item is read whole either way.
    #[test]
    fn complete_agrees_with_covers_on_constant_attributes() {
        static S: EntitySchema = EntitySchema {
            constants: &[ConstantSchema { attribute: "__edb_v__", value: ConstantValue::S("1") }],
            ..crate::schema::check::failed_schema("E")
        };
        let item = |attributes: &[&str]| -> crate::schema::Item {
            attributes
                .iter()
                .map(|a| ((*a).to_owned(), aws_sdk_dynamodb::types::AttributeValue::S("x".into())))
                .collect()
        };
        let keys = ["PK", "SK", "GSI1PK", "GSI1SK"];
        let without = item(&[&keys[..], &["name"]].concat());
        let with = item(&[&keys[..], &["name", "__edb_v__"]].concat());
        assert_eq!(required(&S, Index::Gsi(1)).collect::<Vec<_>>(), ["__edb_v__"]);
        assert_eq!(
            (covers(&S, Index::Gsi(1), Projection::Include(&["name"])), complete(&S, Index::Gsi(1), &without)),
            (false, false)
        );
        assert_eq!(
            (
                covers(&S, Index::Gsi(1), Projection::Include(&["name", "__edb_v__"])),
                complete(&S, Index::Gsi(1), &with)
            ),
            (true, true)
        );
        let decoded = crate::__private::check_constants(&without, &S);
        assert!(
            matches!(decoded, Err(crate::error::Error::Decode { attribute: "__edb_v__", .. })),
            "decoding needs the constant: {decoded:?}"
        );
    }
}
