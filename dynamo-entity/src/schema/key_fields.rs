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

    /// Whether writes of this entity leave `field`'s own attribute out: [`KeyFields::Keys`] (the
    /// field's own [`FieldSchema::key_fields`](crate::schema::FieldSchema::key_fields), or else
    /// the entity's) and [`held_by_key`](Self::held_by_key).
    pub fn key_only(&self, field: &str) -> bool {
        let own = self.fields.iter().find(|f| f.field == field).and_then(|f| f.key_fields);
        own.unwrap_or(self.key_fields) == KeyFields::Keys && self.held_by_key(field)
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
        let f = FieldSchema { lossless: true, ..FieldSchema::new(field, field) }.stored(crate::value::StoredType::S);
        if optional { f.optional() } else { f }
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
    fn a_fields_own_choice_overrides_the_entitys() {
        // The entity stores key fields as attributes; `user_id` alone is kept only in the key.
        static KEYS_FOR_USER: [FieldSchema; 3] =
            [own_const("user_id", KeyFields::Keys), field("day", false), field("tag", false)];
        let mut s = schema();
        s.key_fields = KeyFields::Attributes;
        s.fields = &KEYS_FOR_USER;
        assert_eq!((s.key_only("user_id"), s.key_only("day")), (true, false));
        // `tag` is in no key that always holds it: a choice of "keys" cannot leave it out.
        static KEYS_FOR_TAG: [FieldSchema; 1] = [own_const("tag", KeyFields::Keys)];
        s.fields = &KEYS_FOR_TAG;
        assert!(!s.key_only("tag"));
        // The entity keeps key fields in keys only; `day` keeps its attribute too.
        static ATTRIBUTE_FOR_DAY: [FieldSchema; 2] = [own_const("day", KeyFields::Attributes), field("id", false)];
        let mut s = schema();
        s.fields = &ATTRIBUTE_FOR_DAY;
        assert_eq!((s.key_only("day"), s.key_only("id")), (false, true));
    }

    const fn own_const(name: &'static str, choice: KeyFields) -> FieldSchema {
        field(name, false).key_fields(choice)
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
        assert!(crate::owner::fits_key(&SCHEMA, &it));
        assert!(!crate::owner::fits_key(&SCHEMA, &item(&[("PK", s("USER#a")), ("SK", s("PROFILE"))])));
        // Typed names: the type attribute must name the entity too.
        assert!(!crate::owner::owns(&SCHEMA, &it));
        let mut typed = it.clone();
        typed.insert("_type".into(), s("Order"));
        assert!(crate::owner::owns(&SCHEMA, &typed));
    }
}
