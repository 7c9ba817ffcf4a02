//! The GSI-key rebuild of updates: an update that sets a field some index key is built from
//! rewrites that key from the key-part texts it knows (the fields it sets, and the primary key
//! fields read back from the key), without the rest of the item.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::{
    KeyContext, KeyError, KeyType, KeyWriter, PartForm, Segment, Template, escape_into, hex_into, integer_number_form,
};

/// Why an index key cannot be rebuilt by an update.
#[derive(Debug)]
pub(crate) enum RebuildError {
    /// A part cannot be written into the key.
    Key(KeyError),
    /// The update cannot rebuild the key (the reason, for [`Error::Invalid`](crate::Error::Invalid)).
    Invalid(String),
}

impl From<KeyError> for RebuildError {
    fn from(e: KeyError) -> Self {
        RebuildError::Key(e)
    }
}

/// A key field's value as key-part text. `present == false`: the value is `None`. A form that
/// cannot be derived (see [`primary_parts`]) is `None`.
#[derive(Debug, Clone)]
pub(crate) struct PartText {
    /// Whether the value is present (`false`: `None`).
    pub(crate) present: bool,
    /// The part as it is written inside a string key ([`PartForm::Composite`]).
    pub(crate) composite: Option<String>,
    /// The part as the whole value of a number key ([`PartForm::Number`]).
    pub(crate) number: Option<String>,
}

/// The key-part text of every field an update knows, by field name; a later entry replaces
/// an earlier one of the same field (a field set replaces what the key said).
pub(crate) struct Known<'a>(pub(crate) Vec<(&'static str, &'a PartText)>);

impl Known<'_> {
    /// The latest text known for `field`.
    pub(crate) fn get(&self, field: &str) -> Option<&PartText> {
        self.0.iter().rev().find(|(f, _)| *f == field).map(|(_, t)| *t)
    }

    /// Whether a text is known for `field`.
    pub(crate) fn contains_key(&self, field: &str) -> bool {
        self.get(field).is_some()
    }
}

/// The new value of a GSI key attribute: a value, or an expression over the item's attributes.
pub(crate) enum KeyValue {
    /// The key, written out.
    Value(AttributeValue),
    /// An update expression giving the key (a copied attribute, or a number moved by `add`).
    Expr(String),
}

/// The new value of one GSI key attribute, `None` when a part is absent.
pub(crate) fn key_value(
    ctx: &KeyContext,
    known: &Known<'_>,
    added: &HashMap<&'static str, String>,
) -> Result<Option<KeyValue>, RebuildError> {
    let template = ctx.template;
    let numeric = template.key_type == KeyType::N;
    // A template that is exactly one added number follows the field's new value.
    if let [Segment::Field(f)] = template.segments {
        if let (Some(expr), true) = (added.get(f), numeric) {
            return Ok(Some(KeyValue::Expr(expr.clone())));
        }
    }
    // The parts are already encoded; the writer adds the literals, delimiters and size check.
    // Their lengths are known: room for all of them at once (no growth while writing).
    let known_len: usize = template
        .fields()
        .filter_map(|f| known.get(f))
        .map(|t| t.composite.as_ref().or(t.number.as_ref()).map_or(0, String::len))
        .sum();
    let mut w = KeyWriter::sized(*ctx, known_len);
    for segment in template.segments {
        let (f, shard, raw) = match segment {
            Segment::Literal(_) => continue,
            Segment::Field(f) => (*f, false, false),
            Segment::Part { field, raw, .. } => (*field, false, *raw),
            Segment::Shard { field, .. } => (*field, true, false),
        };
        if added.contains_key(f) {
            return Err(RebuildError::Invalid(format!(
                "cannot add to {}.{f}: it is one part of the composite key `{}`; set it instead",
                ctx.entity, template.source
            )));
        }
        let Some(text) = known.get(f).filter(|t| t.present) else { return Ok(None) };
        // A shard number is a hash of the source's composite (in-key) text.
        match if (numeric || raw) && !shard { &text.number } else { &text.composite } {
            Some(p) if shard => w.encoded_shard(Some(p)),
            Some(p) => w.encoded_part(Some(p))?,
            None => {
                return Err(RebuildError::Invalid(format!(
                    "{}.{f} is stored as a bare number in the primary key and cannot be rewritten into `{}`",
                    ctx.entity, template.source
                )));
            }
        }
    }
    Ok(w.finish_sparse()?.map(KeyValue::Value))
}

/// The part texts of the primary key fields, read back from the encoded key by the rules of
/// the template's own parser ([`Template::parse`]): a string key gives each
/// part in composite form (escaped again, as the key writer takes it) and, for an integer part,
/// its plain number form; a numeric key is its field's number. A key that does not have its
/// template's shape gives no parts (a GSI key built from them is then reported as not derivable).
///
/// `keys` are the primary key's templates, each with its stored value.
pub(crate) fn primary_parts(keys: [(&Template, &AttributeValue); 2]) -> Vec<(&'static str, PartText)> {
    parts_of(keys)
}

/// [`primary_parts`] of any key attributes: each template with its stored value.
pub(crate) fn parts_of<'a>(
    keys: impl IntoIterator<Item = (&'a Template, &'a AttributeValue)>,
) -> Vec<(&'static str, PartText)> {
    let mut out = Vec::new();
    for (template, value) in keys {
        match value {
            AttributeValue::S(s) => {
                // A template without placeholders (`META`) has no part to parse out: skip the
                // parse, which would yield none.
                if template.placeholders().next().is_none() {
                    continue;
                }
                if template.style.is_default() {
                    string_parts(template, s, &mut out);
                } else {
                    parsed_parts(template, s, &mut out);
                }
            }
            AttributeValue::N(n) => {
                if let [Segment::Field(f)] = template.segments {
                    out.push((*f, PartText { present: true, composite: None, number: Some(n.clone()) }));
                }
            }
            // A binary key is one `Vec<u8>` field: its part text is the bytes in hexadecimal, as
            // its `KeyPart` writes them in either form.
            AttributeValue::B(b) => {
                if let [Segment::Field(f)] = template.segments {
                    let mut hex = String::with_capacity(b.as_ref().len() * 2);
                    hex_into(b.as_ref(), &mut hex);
                    out.push((*f, PartText { present: true, composite: Some(hex.clone()), number: Some(hex) }));
                }
            }
            _ => {}
        }
    }
    out
}

/// Appends the part texts of the string key `key` of `template`, which has the default style,
/// to `out`; none when `key` does not have the template's shape. Each part's text is a slice of
/// the key: the writer takes a part as the key holds it (escaped), so nothing is unescaped and
/// escaped again. The same parts as [`parsed_parts`].
fn string_parts(template: &Template, key: &str, out: &mut Vec<(&'static str, PartText)>) {
    let start = out.len();
    if !escaped_parts(template, key, |field, form, part| out.push((field, part_text(form, part)))) {
        // Not the template's shape: no parts (as `Template::parse` refuses it).
        out.truncate(start);
    }
}

/// Appends the part texts of the string key `key` of `template` to `out`, read with the
/// template's own parser ([`Template::parse`]) and escaped again as the key writer takes
/// them; none when `key` does not have the template's shape. For a key of any style.
fn parsed_parts(template: &Template, key: &str, out: &mut Vec<(&'static str, PartText)>) {
    let Ok(parts) = template.parse(key) else { return };
    for ((field, form), part) in template.placeholders().zip(parts) {
        let mut composite = String::with_capacity(part.len());
        escape_into(&part, &mut composite);
        out.push((field, part_text(form, &composite)));
    }
}

/// The part text of a placeholder of `form` whose composite (escaped) text is `composite`.
fn part_text(form: PartForm, composite: &str) -> PartText {
    // An unpadded integer (`<field:raw>`) is its number form; its padded form needs the
    // field's type, so a key that pads it is not rebuilt from it.
    if form == PartForm::Number {
        return PartText { present: true, composite: None, number: Some(composite.to_owned()) };
    }
    let number = integer_number_form(composite);
    PartText { present: true, composite: Some(composite.to_owned()), number }
}

/// Calls `each` with the field, form and escaped text of every placeholder of `template` (of
/// the default style) in the string key `key`, in order; `false` when `key` does not have the
/// template's shape ([`Template::walk`], the rules [`Template::parse`] keeps) or a part has a
/// malformed `%` escape (the default style's are `%23` and `%25`). A well-formed escaped part
/// is its own composite text (unescaping and escaping again gives it back), so no part is
/// copied here.
fn escaped_parts<'k>(template: &Template, key: &'k str, mut each: impl FnMut(&'static str, PartForm, &'k str)) -> bool {
    let whole = if template.key_type == KeyType::N { PartForm::Number } else { PartForm::Composite };
    template
        .walk(key, |segment, part| {
            if !well_escaped(part) {
                return Err(super::template::MALFORMED_ESCAPE);
            }
            match segment {
                Segment::Field(f) => each(f, whole, part),
                Segment::Part { field, raw, .. } => each(field, if *raw { PartForm::Number } else { whole }, part),
                Segment::Literal(_) | Segment::Shard { .. } => {}
            }
            Ok(())
        })
        .is_ok()
}

/// Whether every `%` of `part` starts `%23` or `%25`, the escapes of the default style.
fn well_escaped(part: &str) -> bool {
    let b = part.as_bytes();
    b.iter().enumerate().all(|(i, &c)| c != b'%' || matches!(b.get(i + 1..i + 3), Some(b"23" | b"25")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Cardinality, KeyStyle};

    const fn template(source: &'static str, segments: &'static [Segment]) -> Template {
        Template { source, segments, key_type: KeyType::S, cardinality: Cardinality::High, style: KeyStyle::DEFAULT }
    }

    const TEMPLATES: [Template; 4] = [
        template("SKILL#<id>", &[Segment::Literal("SKILL"), Segment::Field("id")]),
        template("<a>#<b>", &[Segment::Field("a"), Segment::Field("b")]),
        template(
            "V<a>x#<n:raw>#<shard(a, 12)>",
            &[
                Segment::Part { prefix: "V", field: "a", suffix: "x", raw: false },
                Segment::Part { prefix: "", field: "n", suffix: "", raw: true },
                Segment::Shard { field: "a", count: 12 },
            ],
        ),
        template("ORDER#<n>#END", &[Segment::Literal("ORDER"), Segment::Field("n"), Segment::Literal("END")]),
    ];

    /// A type whose attribute text is its key part (`Attribute::__TEXT_IS_PART`) writes the same
    /// text both ways, in either form, and is absent both ways together: an update takes one
    /// for the other.
    #[test]
    fn attribute_text_is_the_key_part_where_the_type_says_so() {
        use crate::key::KeyPart;
        use crate::value::Attribute;
        use crate::value::time::{Date, Timestamp};
        fn same<T: Attribute + KeyPart>(v: &T) {
            assert!(T::__TEXT_IS_PART);
            for form in [PartForm::Composite, PartForm::Number] {
                let mut part = String::new();
                let present = v.write_part(&mut part, form).expect("writes");
                match v.to_attribute().expect("encodes") {
                    Some(AttributeValue::S(text)) => assert!(present && text == part, "{text} / {part}"),
                    None => assert!(!present),
                    Some(other) => panic!("{other:?}"),
                }
            }
        }
        let at = Timestamp::from_millis(1_800_000_000_123).expect("in range");
        let day = Date::from_ymd(2027, 3, 9).expect("a date");
        same(&at);
        same(&Some(at));
        same(&None::<Timestamp>);
        same(&day);
        same(&Some(day));
        const { assert!(!<String as Attribute>::__TEXT_IS_PART && !<u64 as Attribute>::__TEXT_IS_PART) };
    }

    /// Every text of up to `len` characters of `alphabet`.
    fn texts(alphabet: &[char], len: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..len {
            last = last.iter().flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}"))).collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    fn shown(parts: &[(&'static str, PartText)]) -> Vec<(&'static str, bool, Option<String>, Option<String>)> {
        parts.iter().map(|(f, t)| (*f, t.present, t.composite.clone(), t.number.clone())).collect()
    }

    /// The slices of a default-style key are the parts the template's parser reads, escaped
    /// again: the same texts for every key, and none for the same keys (malformed escapes,
    /// other literals, empty parts, shard numbers out of range).
    #[test]
    fn string_parts_are_the_parsed_parts() {
        let alphabet = ['a', '#', '%', '2', '3', '5', '0', '1', 'V', 'x'];
        let mut keys = texts(&alphabet, 5);
        for prefix in ["SKILL#", "ORDER#", "Vax#", "Va%23x#7#0"] {
            keys.extend(texts(&alphabet, 4).into_iter().map(|t| format!("{prefix}{t}")));
        }
        keys.extend(["ORDER#00000000000000000042#END", "Va%25bx#-3#07", "Vax#1#12", "Vax#1#7"].map(str::to_owned));
        let mut found = 0;
        for t in &TEMPLATES {
            for key in &keys {
                let (mut fast, mut parsed) = (Vec::new(), Vec::new());
                string_parts(t, key, &mut fast);
                parsed_parts(t, key, &mut parsed);
                assert_eq!(shown(&fast), shown(&parsed), "key `{key}` of `{}`", t.source);
                found += usize::from(!fast.is_empty());
            }
        }
        // The keys include many of each template's shape (the comparison is not of empty lists).
        assert!(found > 1000, "{found}");
        let mut parts = Vec::new();
        string_parts(&TEMPLATES[2], "Va%23bx#42#05", &mut parts);
        assert_eq!(
            shown(&parts),
            [("a", true, Some("a%23b".to_owned()), None), ("n", true, None, Some("42".to_owned()))]
        );
        let mut parts = Vec::new();
        string_parts(&TEMPLATES[3], "ORDER#00000000000000000042#END", &mut parts);
        assert_eq!(shown(&parts), [("n", true, Some("00000000000000000042".to_owned()), Some("42".to_owned()))]);
    }
}
