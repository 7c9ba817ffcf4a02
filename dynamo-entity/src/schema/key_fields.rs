//! Key fields read back from the keys that hold them.
//!
//! Most tables written by other clients carry an entity's ids only inside its keys
//! (`PK = USER#alice`, no `userId` attribute). A field that fills a placeholder of a key template
//! is therefore decoded from its own attribute when the item has one, and otherwise from the
//! key attribute that holds it, by reversing the template ([`Template::parse`]) and the part's
//! encoding ([`KeyPart::parse_part`]). The templates are tried in schema order: `PK`, `SK`, each
//! GSI's partition then sort key, each LSI's sort key; the first whose attribute is on the item
//! answers.
//!
//! Whether key fields are also written as attributes is the entity's choice ([`KeyFields`]).
//! A field written only inside its keys ([`EntitySchema::key_only`]) is read the other way
//! round: from the key first, from an attribute of its name only when no key that holds it
//! reads back, since an update rewrites the key and leaves such an attribute (written by
//! another client) as it was.

use std::borrow::Cow;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::key::names::AttributeNames;
use crate::key::{KeyPart, KeyType, PartForm, Segment, Template};
use crate::schema::entity::{EntitySchema, IndexSchema, KeyFields};
use crate::value::Item;

/// Where a key field's value was found in an item's keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyPartSource<'i> {
    /// The unescaped part text, to be read with [`KeyPart::parse_part`] in this form.
    Found {
        /// The part's text.
        text: Cow<'i, str>,
        /// How the part is encoded: [`PartForm::Number`] for a numeric (`N`) key.
        form: PartForm,
        /// The key attribute it came from.
        attribute: &'static str,
        /// That key's template.
        template: &'static Template,
    },
    /// No template with this field has its key attribute on the item.
    Absent,
    /// The first key attribute present does not have its template's shape.
    Mismatch(String),
}

/// The position of `field` among the parts [`Template::parse`] returns and the form its part
/// is written in, if a placeholder of `template` names it (a shard segment's source field has
/// none).
fn position(template: &Template, field: &str) -> Option<(usize, PartForm)> {
    template.placeholders().enumerate().find_map(|(i, (f, form))| (f == field).then_some((i, form)))
}

impl EntitySchema {
    /// Whether `template` holds `field` in a form it can be read back from: a placeholder names
    /// it, and the key keeps the value's case (a case-folded key, see
    /// [`KeyStyle`](crate::key::KeyStyle), has lost it) or the field takes its value in the
    /// key's case ([`FieldSchema::folded`](crate::schema::FieldSchema::folded)).
    pub(crate) fn readable(&self, template: &Template, field: &str) -> Option<(usize, PartForm)> {
        position(template, field)
            .filter(|_| !template.style.folds_case() || self.fields.iter().any(|f| f.field == field && f.folded))
    }

    /// Whether the entity's primary key fixes the value of `field`: a placeholder of the
    /// primary partition or sort key template names it, in a key that keeps case, and the field
    /// is written by one of the library's one-to-one part writers
    /// ([`FieldSchema::lossless`](crate::schema::FieldSchema::lossless)). Since an item whose
    /// key fields disagree with its keys does not decode, such a field cannot change on an
    /// item that still decodes without its primary key changing: a write addressed to the
    /// primary key need not check it (a backfill's condition leaves it out).
    pub(crate) fn fixed_by_primary_key(&self, field: &str) -> bool {
        let in_key = |t: &Template| !t.style.folds_case() && position(t, field).is_some();
        (in_key(self.primary.pk) || in_key(self.primary.sk))
            && self.fields.iter().any(|f| f.field == field && f.lossless)
    }

    /// Every key template of the entity that writes an attribute, with that attribute's name
    /// under [`names`](EntitySchema::names), in the order reads try them: `PK`, `SK`, each
    /// GSI's partition then sort key, each LSI's sort key.
    pub fn key_templates(&self) -> impl Iterator<Item = (&'static str, &'static Template)> + '_ {
        let pair = |i: &IndexSchema| [(self.names.pk_of(i.index), i.pk), (self.names.sk_of(i.index), i.sk)];
        pair(&self.primary)
            .into_iter()
            .chain(self.gsis.iter().flat_map(pair))
            .chain(self.lsis.iter().map(|l| (self.names.sk_of(l.index), l.sk)))
    }

    /// Whether a key is written whenever `field` has a value and holds it: the field fills a
    /// placeholder of the primary key, or of a GSI or LSI whose other parts are never absent
    /// (an `Option` part that is `None` leaves a whole index key out, and the fields in it
    /// with it). Under [`KeyFields::Keys`], exactly these fields are written without an
    /// attribute of their own.
    pub fn held_by_key(&self, field: &str) -> bool {
        let fills = |t: &Template| self.readable(t, field).is_some();
        if fills(self.primary.pk) || fills(self.primary.sk) {
            return true;
        }
        let others_present =
            |i: &IndexSchema| i.pk.fields().chain(i.sk.fields()).filter(|f| *f != field).all(|f| !self.is_optional(f));
        self.gsis.iter().chain(self.lsis).any(|i| (fills(i.pk) || fills(i.sk)) && others_present(i))
    }

    /// Whether writes of this entity leave `field`'s own attribute out: [`KeyFields::Keys`] and
    /// [`held_by_key`](Self::held_by_key).
    pub fn key_only(&self, field: &str) -> bool {
        self.key_fields == KeyFields::Keys && self.held_by_key(field)
    }

    /// The text of `field`'s part in the first key of `item` that holds it (see the module
    /// documentation).
    pub fn key_part_of<'i>(&self, item: &'i Item, field: &str) -> KeyPartSource<'i> {
        for (attribute, template) in self.key_templates() {
            let Some((at, form)) = self.readable(template, field) else { continue };
            let Some(stored) = item.get(attribute) else { continue };
            let text = match (stored, template.key_type) {
                (AttributeValue::S(s), KeyType::S) | (AttributeValue::N(s), KeyType::N) => s.as_str(),
                // A binary key is one placeholder: its part is the bytes, in the hexadecimal
                // text form `Vec<u8>`'s `KeyPart` reads.
                (AttributeValue::B(b), KeyType::B) if at == 0 && !b.as_ref().is_empty() => {
                    let mut hex = String::with_capacity(b.as_ref().len() * 2);
                    crate::key::hex_into(b.as_ref(), &mut hex);
                    return KeyPartSource::Found { text: hex.into(), form, attribute, template };
                }
                (other, _) => {
                    return KeyPartSource::Mismatch(format!(
                        "key attribute {attribute} is of type {}, not {:?} as template `{}` writes",
                        crate::value::type_name(other),
                        template.key_type,
                        template.source
                    ));
                }
            };
            return match template.parse(text) {
                Ok(mut parts) if at < parts.len() => {
                    KeyPartSource::Found { text: parts.swap_remove(at), form, attribute, template }
                }
                Ok(_) => KeyPartSource::Absent,
                Err(e) => KeyPartSource::Mismatch(format!("key attribute {attribute}: {e}")),
            };
        }
        KeyPartSource::Absent
    }

    /// The text this entity's partition key begins with, and its sort key's (when it begins
    /// with literal text too), when the partition key begins with literal text (`USER#` of
    /// `USER#<id>`, `o` of `o<num>`, `META` of a constant): what an item must begin with to be
    /// one of its keys (`begins_with` conditions for a scan's filter).
    pub(crate) fn key_beginnings(&self) -> Option<(String, Option<String>)> {
        let beginning = |t: &Template| {
            if t.key_type != KeyType::S {
                return None;
            }
            match t.segments.first()? {
                Segment::Literal(l) if t.segments.len() > 1 => Some(format!("{l}{}", t.style.delimiter)),
                Segment::Literal(l) => Some((*l).to_owned()),
                Segment::Part { prefix, .. } if !prefix.is_empty() => Some((*prefix).to_owned()),
                _ => None,
            }
        };
        Some((beginning(self.primary.pk)?, beginning(self.primary.sk)))
    }

    /// Whether `item`'s primary key has this entity's key templates' shape
    /// ([`Template::fits_shaped`] on `PK` and `SK`, under [`names`](EntitySchema::names), with
    /// each field's [`shape`](crate::schema::FieldSchema::shape)): how the items of entities
    /// that share a type value, or of a table without a type attribute, are told apart, by the
    /// same part shapes as the table's compile-time collision checks (`V#LATEST` is not a
    /// `V#<version>` of a `u64`).
    pub fn fits_key(&self, item: &Item) -> bool {
        self.primary_fits(item, true)
    }

    /// Whether `item`'s primary key has the segments of this entity's templates, whatever its
    /// parts hold ([`Template::fits`]): the same literal segments and as many parts. Such an
    /// item that does not [`fits_key`](Self::fits_key) is meant as this entity's key by a
    /// writer whose parts have another form (a time as `2026-05-01T12:00:04Z`, an integer
    /// without its padding), and reads report it rather than pass over it.
    pub(crate) fn fits_loosely(&self, item: &Item) -> bool {
        self.primary_fits(item, false)
    }

    /// Whether `item`'s `PK` and `SK` fit this entity's primary key templates: with each
    /// field's [`shape`](crate::schema::FieldSchema::shape) when `shaped`, else whatever the
    /// parts hold.
    fn primary_fits(&self, item: &Item, shaped: bool) -> bool {
        let shape = |field: &str| match self.fields.iter().find(|f| f.field == field) {
            Some(f) if shaped => f.shape,
            _ => crate::key::PartShape::Any,
        };
        let fits = |attribute: &str, t: &Template| item.get(attribute).is_some_and(|v| t.fits_shaped(v, shape));
        fits(self.names.pk, self.primary.pk) && fits(self.names.sk, self.primary.sk)
    }

    /// Whether `item` is one of this entity's: its type attribute names the entity (for a
    /// table without one, always) and its primary key has the entity's templates' shape.
    pub fn owns(&self, item: &Item) -> bool {
        let typed = !self.names.has_entity_type()
            || matches!(item.get(self.names.entity_type), Some(AttributeValue::S(t)) if t == self.name);
        typed && self.fits_key(item)
    }

    /// Whether the first segment of each of `item`'s primary key attributes begins as this
    /// entity's templates do: equal to a leading literal segment (`ORDER` for
    /// `ORDER#<day>#<id>`), or starting with the literal text before a leading placeholder
    /// (`o` for `o<num>`, `user_` for `user_<id>`). `false` for a template that begins with a
    /// bare placeholder, which any key fits.
    pub(crate) fn starts_as(&self, item: &Item) -> bool {
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
        starts(self.primary.pk, self.names.pk) && starts(self.primary.sk, self.names.sk)
    }

    /// The error of an item that a read of this entity finds among its own but that no entity
    /// describes, so that it is reported rather than passed over; `None` for this entity's
    /// items, another entity's, and the library's own. `known` holds the table's entities
    /// (`None` when the handle does not know them). Such an item is:
    ///
    /// - one of this entity's type value whose primary key fits the templates of no entity of
    ///   that value: [`Error::KeyFitsNoEntity`], listing the entities of the value (this one
    ///   first when `known` leaves it out) with their templates;
    /// - one of another entity's type value (`known` holding that entity) whose primary key
    ///   fits this entity's templates and none of that value's: [`Error::WrongEntity`], as a
    ///   get of its key says;
    /// - one without a type value that names an entity (in a typed table: no type attribute,
    ///   not a string, or, the table's entities known, a value none of them has; in a table
    ///   without a type attribute, every item) whose keys begin as this entity's templates
    ///   do ([`starts_as`](Self::starts_as)) or have their segments
    ///   ([`fits_loosely`](Self::fits_loosely)): [`Error::WrongEntity`] when its primary key fits
    ///   this entity's templates in a typed table (as a get of it says), else, unless another
    ///   known entity's templates fit it (or, in a typed table, the table's entities are not
    ///   known and the item was read from secondary index `index`, whose projection may leave
    ///   the type out), [`Error::KeyFitsNoEntity`] listing the entities whose templates begin
    ///   as its keys.
    pub(crate) fn misfit(
        &'static self,
        known: Option<&[&'static EntitySchema]>,
        index: crate::key::names::Index,
        item: &Item,
    ) -> Option<Error> {
        let names = self.names;
        if crate::schema::is_library_item(item, names) {
            return None;
        }
        let all = known.unwrap_or(&[]);
        let typed = names.has_entity_type();
        let value = match item.get(names.entity_type) {
            Some(AttributeValue::S(t))
                if typed && (known.is_none() || t == self.name || all.iter().any(|e| e.name == t)) =>
            {
                Some(t.as_str())
            }
            _ => None,
        };
        let mut candidates: Vec<&EntitySchema> = match value {
            // Another entity's type value. With the table's entities known, an item whose key
            // fits this entity's templates and none of that type's is this key's item of the
            // wrong type, as a get of it says.
            Some(t) if t != self.name => {
                let misplaced =
                    known.is_some() && self.fits_key(item) && !all.iter().any(|e| e.name == t && e.fits_key(item));
                return misplaced.then(|| wrong_entity(self.name, item, names));
            }
            Some(_) => {
                if self.fits_key(item) || all.iter().any(|e| e.owns(item)) {
                    return None;
                }
                all.iter().copied().filter(|e| e.name == self.name).collect()
            }
            None => {
                if !self.starts_as(item) && !self.fits_loosely(item) {
                    return None;
                }
                if self.fits_key(item) {
                    // Untyped: this entity's item. Typed: this entity's key without its type.
                    return typed.then(|| wrong_entity(self.name, item, names));
                }
                // Unknown entities: in a typed table, an item without its type read from a
                // secondary index is most often another entity's, whose type the index's
                // projection leaves out; on the table, every entity's items carry their type.
                let projected = known.is_none() && typed && index != crate::key::names::Index::Primary;
                if projected || all.iter().any(|e| e.fits_key(item)) {
                    return None;
                }
                all.iter().copied().filter(|e| e.starts_as(item)).collect()
            }
        };
        if !candidates.iter().any(|e| e.rust_name == self.rust_name && e.name == self.name) {
            candidates.insert(0, self);
        }
        Some(key_fits_no_entity(item, &candidates, names))
    }

    /// The templates that hold `field`, as `ATTR (`template`)` for messages.
    pub(crate) fn describe_holders(&self, field: &str) -> String {
        let holders: Vec<String> = self
            .key_templates()
            .filter(|(_, t)| position(t, field).is_some())
            .map(|(a, t)| format!("{a} (`{}`)", t.source))
            .collect();
        holders.join(", ")
    }
}

/// [`Error::WrongEntity`] for `item`, read where an item of entity `expected` was wanted: the
/// error names the type value the item holds under `names` (or its absence) and its key.
pub(crate) fn wrong_entity(expected: &'static str, item: &Item, names: &AttributeNames) -> Error {
    Error::WrongEntity {
        expected,
        found: item.get(names.entity_type).map(type_value_text),
        key: names.describe_key(item),
    }
}

/// What an item's type attribute holds, for [`Error::WrongEntity`]: a string as it is, a
/// number as `the number 1` (not to be taken for a type value), any other value by its type
/// (`a value of type NULL`).
pub(crate) fn type_value_text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::N(n) => format!("the number {n}"),
        other => crate::schema::describe_value(other),
    }
}

/// [`Error::KeyFitsNoEntity`] for `item`, which belongs by its type value (or the first
/// segment of its keys) to `entities`, under the attribute names `names`: the entities are
/// listed with their primary key templates.
pub(crate) fn key_fits_no_entity(item: &Item, entities: &[&EntitySchema], names: &AttributeNames) -> Error {
    let found = match item.get(names.entity_type) {
        Some(AttributeValue::S(t)) => Some(t.clone()),
        _ => None,
    };
    let entities = entities
        .iter()
        .map(|e| {
            format!("{} ({} `{}`, {} `{}`)", e.rust_name, names.pk, e.primary.pk.source, names.sk, e.primary.sk.source)
        })
        .collect();
    Error::KeyFitsNoEntity { found, entities, key: names.describe_key(item) }
}

/// Reads a key field's value from the key that holds it, for an item without the field's own
/// attribute: `Ok(None)` when no key holding it is on the item.
///
/// # Errors
/// A message saying which key does not have its template's shape, or which part does not
/// parse as `T`.
pub fn part_from_keys<T: KeyPart>(schema: &EntitySchema, item: &Item, field: &str) -> Result<Option<T>, String> {
    match schema.key_part_of(item, field) {
        KeyPartSource::Found { text, form, attribute, template } => T::parse_part(&text, form)
            .or_else(|e| {
                // A folded key holds `2026-05-01t12:00:00.000z` for a time: its value read in
                // the other case parses when the written form was in that case.
                let unfolded = match template.style.case {
                    crate::key::KeyCase::AsIs => return Err(e),
                    crate::key::KeyCase::Lower => text.to_uppercase(),
                    crate::key::KeyCase::Upper => text.to_lowercase(),
                };
                T::parse_part(&unfolded, form).map_err(|_| e)
            })
            .map(Some)
            .map_err(|e| {
                format!(
                    "the attribute is missing, and part `{field}` of {attribute} (`{}`) is not valid: {e}",
                    template.source
                )
            }),
        KeyPartSource::Absent => Ok(None),
        KeyPartSource::Mismatch(why) => Err(format!("the attribute is missing, and {why}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Cardinality, KeyType, Segment};
    use crate::schema::check::failed_schema;
    use crate::schema::{FieldSchema, Index};

    const fn tpl(source: &'static str, segments: &'static [Segment], key_type: KeyType) -> Template {
        Template { source, segments, key_type, cardinality: Cardinality::High, style: crate::key::KeyStyle::DEFAULT }
    }
    const PK: Template = tpl("USER#<user_id>", &[Segment::Literal("USER"), Segment::Field("user_id")], KeyType::S);
    const SK: Template =
        tpl("ORDER#<day>#<id>", &[Segment::Literal("ORDER"), Segment::Field("day"), Segment::Field("id")], KeyType::S);
    const G1PK: Template = tpl("ST#<status>", &[Segment::Literal("ST"), Segment::Field("status")], KeyType::S);
    const G1SK: Template = tpl("<total>", &[Segment::Field("total")], KeyType::N);
    const G2PK: Template = tpl("TAG#<tag>", &[Segment::Literal("TAG"), Segment::Field("tag")], KeyType::S);
    const G2SK: Template = tpl("<note>", &[Segment::Field("note")], KeyType::S);
    const fn field(field: &'static str, optional: bool) -> FieldSchema {
        FieldSchema {
            field,
            attribute: field,
            optional,
            unique: false,
            shape: crate::key::PartShape::Any,
            folded: false,
            lossless: true,
            stored: Some(crate::value::StoredType::S),
        }
    }
    const FIELDS: &[FieldSchema] = &[
        field("user_id", false),
        field("day", false),
        field("id", false),
        field("status", false),
        field("total", false),
        field("tag", false),
        field("note", true),
    ];
    const fn schema() -> EntitySchema {
        let mut s = failed_schema("Order");
        s.primary = IndexSchema { index: Index::Primary, pk: &PK, sk: &SK };
        s.gsis = &[
            IndexSchema { index: Index::Gsi(1), pk: &G1PK, sk: &G1SK },
            IndexSchema { index: Index::Gsi(2), pk: &G2PK, sk: &G2SK },
        ];
        s.fields = FIELDS;
        s.key_fields = KeyFields::Keys;
        s
    }
    static SCHEMA: EntitySchema = schema();

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
    }
    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }

    #[test]
    fn fields_a_key_always_holds() {
        // Primary key fields; GSI1's fields (no optional part); not GSI2's `tag`, whose index
        // is absent when `note` is None; `note` itself (the only other part, `tag`, is required).
        let held: Vec<&str> = FIELDS.iter().map(|f| f.field).filter(|f| SCHEMA.held_by_key(f)).collect();
        assert_eq!(held, ["user_id", "day", "id", "status", "total", "note"]);
        assert!(SCHEMA.key_only("day") && !SCHEMA.key_only("tag"));
        let mut attributes = schema();
        attributes.key_fields = KeyFields::Attributes;
        assert!(!attributes.key_only("day"));
    }

    #[test]
    fn parts_are_read_from_the_first_key_present() {
        let it = item(&[
            ("PK", s("USER#a%23b")),
            ("SK", s("ORDER#2026-05-01#o1")),
            ("GSI1PK", s("ST#paid")),
            ("GSI1SK", AttributeValue::N("1299".into())),
        ]);
        assert_eq!(part_from_keys::<String>(&SCHEMA, &it, "user_id"), Ok(Some("a#b".to_owned())));
        assert_eq!(part_from_keys::<String>(&SCHEMA, &it, "id"), Ok(Some("o1".to_owned())));
        assert_eq!(part_from_keys::<u64>(&SCHEMA, &it, "total"), Ok(Some(1299)));
        assert_eq!(part_from_keys::<Option<String>>(&SCHEMA, &it, "note"), Ok(None));
        assert_eq!(SCHEMA.describe_holders("note"), "GSI2SK (`<note>`)");
        let bad = item(&[("PK", s("USER#a")), ("SK", s("ORDER#x"))]);
        assert_eq!(
            part_from_keys::<String>(&SCHEMA, &bad, "id"),
            Err("the attribute is missing, and key attribute SK: key `ORDER#x` does not match template \
                 `ORDER#<day>#<id>`: it has fewer segments than the template"
                .to_owned())
        );
        let n = item(&[("GSI1SK", s("12"))]);
        assert!(matches!(SCHEMA.key_part_of(&n, "total"), KeyPartSource::Mismatch(_)));
    }

    #[test]
    fn the_primary_key_fixes_its_one_to_one_fields_in_a_key_that_keeps_case() {
        let fixed = |schema: &EntitySchema| -> Vec<&str> {
            FIELDS.iter().map(|f| f.field).filter(|f| schema.fixed_by_primary_key(f)).collect()
        };
        // `PK` and `SK` hold `user_id`, `day` and `id`; the GSI fields are the item's to change.
        assert_eq!(fixed(&SCHEMA), ["user_id", "day", "id"]);
        // A hand-written part may write two values as one text: the key does not fix it.
        static HAND: [FieldSchema; 3] = {
            let mut day = field("day", false);
            day.lossless = false;
            [field("user_id", false), day, field("id", false)]
        };
        let mut hand = schema();
        hand.fields = &HAND;
        assert_eq!(fixed(&hand), ["user_id", "id"]);
        // A case-folded sort key (`key_case = "lower"`) keeps `Alice` and `alice` apart no more.
        static FOLDED_SK: Template = Template {
            style: crate::key::KeyStyle { case: crate::key::KeyCase::Lower, ..crate::key::KeyStyle::DEFAULT },
            ..SK
        };
        let mut folded = schema();
        folded.primary = IndexSchema { index: Index::Primary, pk: &PK, sk: &FOLDED_SK };
        assert_eq!(fixed(&folded), ["user_id"]);
    }

    #[test]
    fn key_shapes_tell_entities_apart() {
        assert!(SK.fits(&s("ORDER#2026#o1")));
        assert!(!SK.fits(&s("ORDER#2026")));
        assert!(!SK.fits(&s("ORDER#2026#o1#x")));
        assert!(!SK.fits(&s("ORDERS#2026#o1")));
        assert!(!SK.fits(&s("ORDER##o1")));
        assert!(G1SK.fits(&AttributeValue::N("7".into())) && !G1SK.fits(&s("7")));
        let it = item(&[("PK", s("USER#a")), ("SK", s("ORDER#d#o"))]);
        assert!(SCHEMA.fits_key(&it));
        assert!(!SCHEMA.fits_key(&item(&[("PK", s("USER#a")), ("SK", s("PROFILE"))])));
        // Typed names: the type attribute must name the entity too.
        assert!(!SCHEMA.owns(&it));
        let mut typed = it.clone();
        typed.insert("_type".into(), s("Order"));
        assert!(SCHEMA.owns(&typed));
    }
}
