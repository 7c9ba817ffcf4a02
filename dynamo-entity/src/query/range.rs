//! The sort-key ranges queries build from templates: the default `BETWEEN` of a template whose
//! first part has a fixed form, and the character that bounds a partial key.

use std::collections::HashMap;

use crate::schema::EntitySchema;

/// The `BETWEEN` bounds of the default query of sort key template `sk` of `schema`, when the
/// part after its literal prefix has a fixed form (an unsigned integer, a time, a date; see
/// [`narrowed_segment`](crate::schema::check::narrowed_segment)): its values all lie between
/// the form with 0s and with 9s, so `BETWEEN prefix + 0s AND prefix + 9s + <the character after
/// the delimiter>` reads them and their children (`prefix<value><delimiter>…`), without the
/// sibling sort keys `begins_with` would match (`V#LATEST` beside `V#<version>`).
///
/// Computed once per template (a query of it is built often): the bounds are kept for the
/// process's life, one pair per template that has them.
pub(super) fn fixed_form_bounds(
    schema: &'static EntitySchema,
    sk: &'static crate::key::Template,
) -> Option<&'static (String, String)> {
    type Bounds = Option<&'static (String, String)>;
    static KNOWN: std::sync::OnceLock<std::sync::RwLock<HashMap<(usize, usize), Bounds>>> = std::sync::OnceLock::new();
    let id = (std::ptr::from_ref(schema) as usize, std::ptr::from_ref(sk) as usize);
    let known = KNOWN.get_or_init(Default::default);
    if let Some(b) = known.read().unwrap_or_else(std::sync::PoisonError::into_inner).get(&id) {
        return *b;
    }
    let bounds = narrow_bounds(schema, sk).map(|b| &*Box::leak(Box::new(b)));
    *known.write().unwrap_or_else(std::sync::PoisonError::into_inner).entry(id).or_insert(bounds)
}

/// [`fixed_form_bounds`], computed.
fn narrow_bounds(schema: &EntitySchema, sk: &crate::key::Template) -> Option<(String, String)> {
    let prefix = sk.literal_prefix();
    let k = sk.segments.iter().take_while(|s| matches!(s, crate::key::Segment::Literal(_))).count();
    let field = crate::schema::check::narrowed_segment(schema, sk, k)?;
    let form = schema.fields.iter().find(|x| x.field == field)?.shape.fixed_form()?;
    let low: String = form.chars().map(|c| if c == '9' { '0' } else { c }).collect();
    let (_, after) = delimiter_and_next(sk);
    Some((format!("{prefix}{low}"), format!("{prefix}{form}{after}")))
}

/// The sort key's delimiter and the character right after it (`#` and `$` by default): a
/// partial range bound `prefix` + delimiter lies before every key with those leading parts,
/// `prefix` + the next character after all of them.
pub(super) fn delimiter_and_next(sk: &crate::key::Template) -> (char, char) {
    let d = sk.style.delimiter;
    (d, char::from_u32(u32::from(d) + 1).unwrap_or(d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Cardinality, KeyStyle, KeyType, PartShape, Segment, Template};
    use crate::schema::FieldSchema;

    const fn sk(delimiter: char) -> Template {
        Template {
            source: "V#<version>",
            segments: &[Segment::Literal("V"), Segment::Field("version")],
            key_type: KeyType::S,
            cardinality: Cardinality::High,
            style: KeyStyle { delimiter, ..KeyStyle::DEFAULT },
        }
    }

    const fn schema() -> EntitySchema {
        let mut s = crate::schema::check::failed_schema("Doc");
        const VERSION: FieldSchema = FieldSchema {
            shape: PartShape::Digits { width: 3, signed: false },
            lossless: true,
            ..FieldSchema::new("version", "version").stored(crate::value::StoredType::N)
        };
        s.fields = &[VERSION];
        s
    }

    static SCHEMA: EntitySchema = schema();
    static HASH: Template = sk('#');
    static PIPE: Template = sk('|');

    #[test]
    fn the_default_range_of_a_fixed_form_part_ends_after_the_delimiter() {
        // `#` then `$`: every `V#<3 digits>…` (children too) lies in the range, `V#LATEST`
        // (a letter) outside it.
        assert_eq!(fixed_form_bounds(&SCHEMA, &HASH), Some(&("V#000".to_owned(), "V#999$".to_owned())));
        // `|` then `}`: `$` would sort below `|`, leaving the children `V|<version>|…` out.
        let pipe = fixed_form_bounds(&SCHEMA, &PIPE);
        assert_eq!(pipe, Some(&("V|000".to_owned(), "V|999}".to_owned())));
        assert!("V|999|COMMENT|1" < pipe.unwrap().1.as_str());
        // Once per template: the same bounds, not computed again.
        assert!(std::ptr::eq(pipe.unwrap(), fixed_form_bounds(&SCHEMA, &PIPE).unwrap()));
    }
}
