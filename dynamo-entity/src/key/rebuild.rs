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

/// The part texts of the primary key fields, read back from the encoded key with the template's
/// own parser ([`Template::parse`]): a string key gives each
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
                let Ok(parts) = template.parse(s) else { continue };
                for ((field, form), part) in template.placeholders().zip(parts) {
                    let mut composite = String::with_capacity(part.len());
                    escape_into(&part, &mut composite);
                    // An unpadded integer (`<field:raw>`) is its number form; its padded form
                    // needs the field's type, so a key that pads it is not rebuilt from it.
                    if form == PartForm::Number {
                        out.push((field, PartText { present: true, composite: None, number: Some(composite) }));
                        continue;
                    }
                    let number = integer_number_form(&composite);
                    out.push((field, PartText { present: true, composite: Some(composite), number }));
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
