//! What the derive can tell from a field's type as written.
//!
//! Types are recognised by the last segment of their path (`String`, `std::string::String`).
//! This only decides which errors to report early and which trait bounds to spell out; the
//! compiler checks the real types.

use proc_macro2::Span;
use quote::ToTokens;
use syn::{GenericArgument, PathArguments, Type, TypePath};

/// How a field's type can fill a key placeholder.
pub enum KeyPartType<'a> {
    /// A type the runtime implements `KeyPart` for (`String`, integers, `bool`, `Timestamp`,
    /// `Option` of these).
    Builtin,
    /// Another path type: it must implement `KeyPart` (usually by `#[derive(KeyPart)]`). The
    /// type to check, without `Option`.
    Custom(&'a Type),
    /// Binary data, `Vec<u8>` (or an `Option` of it): a key part only as the whole of a key
    /// template (`<digest>`), which is then a binary (`B`) key attribute.
    Binary,
    /// A type that can never be a key part, with the reason.
    Rejected(String),
}

const INTEGERS: &[&str] = &["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize"];
const KEY_SCALARS: &[&str] = &["String", "bool", "Timestamp"];
const COLLECTIONS: &[&str] =
    &["Vec", "VecDeque", "LinkedList", "HashMap", "BTreeMap", "HashSet", "BTreeSet", "BinaryHeap"];

/// `T` for `Option<T>` (any path ending in `Option` with one type argument).
pub fn option_inner(ty: &Type) -> Option<&Type> {
    generic_args(ty, "Option").and_then(|args| match args.as_slice() {
        [one] => Some(*one),
        _ => None,
    })
}

/// Whether `ty` is `Vec<f32>` or `Option<Vec<f32>>`: what a vector index's field may be.
pub fn is_vector(ty: &Type) -> bool {
    let ty = option_inner(ty).unwrap_or(ty);
    match generic_args(ty, "Vec").as_deref() {
        Some([one]) => matches!(last_segment(one), Some((name, None)) if name == "f32"),
        _ => false,
    }
}

/// What `ty` stores when, by its name alone, that is not one string, number or binary value (a
/// bool, a list, a map, a set), or `None`: a search schema attribute's type. Another path type
/// is checked by the constant its `Attribute` impl declares (`Attribute::STORED`).
pub fn scalar_rejection(ty: &Type) -> Option<String> {
    let inner = option_inner(ty).unwrap_or(ty);
    let (name, _) = last_segment(inner)?;
    match name.as_str() {
        "bool" => Some("a `bool`, stored as BOOL".to_owned()),
        "Vec" if !is_bytes(inner) => Some("a `Vec`, stored as a list (L)".to_owned()),
        "HashMap" | "BTreeMap" => Some(format!("a `{name}`, stored as a map (M)")),
        "HashSet" | "BTreeSet" => Some(format!("a `{name}`, stored as a set")),
        _ => None,
    }
}

/// The type arguments of `ty` when it is a path ending in `name` with `<...>` arguments.
fn generic_args<'t>(ty: &'t Type, name: &str) -> Option<Vec<&'t Type>> {
    let (last, args) = last_segment(ty)?;
    if last != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = args? else {
        return None;
    };
    Some(
        args.args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
    )
}

/// The last path segment's name and its arguments (`None` when it has none).
fn last_segment(ty: &Type) -> Option<(String, Option<&PathArguments>)> {
    match unwrap_groups(ty) {
        Type::Path(TypePath { qself: None, path }) => {
            let seg = path.segments.last()?;
            let args = (!seg.arguments.is_none()).then_some(&seg.arguments);
            Some((seg.ident.to_string(), args))
        }
        _ => None,
    }
}

fn unwrap_groups(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => unwrap_groups(&g.elem),
        Type::Paren(p) => unwrap_groups(&p.elem),
        other => other,
    }
}

/// The name of a plain path type without arguments (`u64`, `String`).
fn plain_name(ty: &Type) -> Option<String> {
    match last_segment(ty)? {
        (name, None) => Some(name),
        _ => None,
    }
}

/// Classifies a field type used in a key template.
pub fn key_part(ty: &Type) -> KeyPartType<'_> {
    let inner = match option_inner(ty) {
        Some(inner) => {
            if option_inner(inner).is_some() {
                return KeyPartType::Rejected(
                    "an `Option<Option<..>>` cannot be a key part: a key part is present or absent, \
                     with no third state"
                        .to_owned(),
                );
            }
            inner
        }
        None => ty,
    };
    classify(inner)
}

const ONE_VALUE: &str =
    "a key part is one value: a string, an integer, a bool, a `Timestamp`, or a type that derives `KeyPart`";

fn classify(ty: &Type) -> KeyPartType<'_> {
    match unwrap_groups(ty) {
        Type::Path(TypePath { qself: None, .. }) => {
            let Some((name, args)) = last_segment(ty) else {
                return KeyPartType::Custom(ty);
            };
            if args.is_none() && (INTEGERS.contains(&name.as_str()) || KEY_SCALARS.contains(&name.as_str())) {
                KeyPartType::Builtin
            } else if is_bytes(ty) {
                KeyPartType::Binary
            } else if args.is_none() && (name == "f32" || name == "f64") {
                KeyPartType::Rejected(
                    "floating-point numbers cannot be key parts: a key is found by its exact value, and a float \
                     is rarely the value written (0.1 + 0.2 is not 0.3; NaN and infinities have no DynamoDB \
                     number); in a string key its text does not sort numerically either; use an integer (such as \
                     an amount in cents)"
                        .to_owned(),
                )
            } else if COLLECTIONS.contains(&name.as_str()) {
                KeyPartType::Rejected(format!("a `{name}` holds many values, but {ONE_VALUE}"))
            } else {
                KeyPartType::Custom(ty)
            }
        }
        Type::Path(_) => KeyPartType::Custom(ty),
        Type::Tuple(t) if t.elems.is_empty() => {
            KeyPartType::Rejected(format!("`()` has no value to write; {ONE_VALUE}"))
        }
        Type::Tuple(_) => KeyPartType::Rejected(format!(
            "a tuple cannot be a key part: {ONE_VALUE}; give each value its own field and placeholder, \
             such as `<a>#<b>`"
        )),
        Type::Array(_) | Type::Slice(_) => KeyPartType::Rejected(format!("an array cannot be a key part: {ONE_VALUE}")),
        Type::Reference(_) => {
            KeyPartType::Rejected(format!("a reference cannot be a key part: an entity owns its fields; {ONE_VALUE}"))
        }
        _ => KeyPartType::Rejected(format!("this type cannot be a key part: {ONE_VALUE}")),
    }
}

/// Why a field of type `ty` cannot be `#[entity(unique)]`, or `None` when it can. A guard item
/// is keyed on the one stored value of the field: a string, a number, binary data (`Vec<u8>`) or
/// a bool; `Option` is allowed (`None` claims nothing). Another path type is accepted here and
/// checked at run time by the kind of value its `Attribute` impl stores.
pub fn unique_rejection(ty: &Type) -> Option<String> {
    const ONE: &str = "a unique field holds one string, number, binary (`Vec<u8>`) or bool value, which its guard \
                       item is keyed on";
    let inner = option_inner(ty).unwrap_or(ty);
    if option_inner(inner).is_some() {
        return Some(format!("an `Option<Option<..>>` has two kinds of absence; {ONE}"));
    }
    match classify(inner) {
        KeyPartType::Builtin | KeyPartType::Binary | KeyPartType::Custom(_) => None,
        KeyPartType::Rejected(_) => Some(match last_segment(inner) {
            Some((name, None)) if name == "f32" || name == "f64" => format!(
                "equal floating-point numbers can have several texts (`1`, `1.0`), and NaN equals nothing; {ONE}"
            ),
            Some((name, _)) if COLLECTIONS.contains(&name.as_str()) => {
                format!("a `{name}` holds many values; {ONE}")
            }
            _ => format!("this type has no single value to claim; {ONE}"),
        }),
    }
}

/// Whether `ty` is `Vec<u8>` (any path ending in `Vec` with the one argument `u8`): binary data.
pub fn is_bytes(ty: &Type) -> bool {
    generic_args(ty, "Vec").is_some_and(|a| a.len() == 1 && plain_name(a[0]).as_deref() == Some("u8"))
}

/// Whether `ty` is a primitive integer type (`u8` to `u128`, `i8` to `i128`, `usize`, `isize`).
pub fn is_integer(ty: &Type) -> bool {
    plain_name(ty).is_some_and(|n| INTEGERS.contains(&n.as_str()))
}

/// Whether `ty` is the runtime's `Timestamp` (any path ending in `Timestamp`).
pub fn is_timestamp(ty: &Type) -> bool {
    plain_name(ty).as_deref() == Some("Timestamp")
}

/// Whether the runtime implements `Attribute` for `ty` (so the derive need not spell the bound
/// out): scalars, and `Option`, `Vec`, `Box`, maps keyed by `String` and sets of these.
pub fn is_builtin_attribute(ty: &Type) -> bool {
    let Some((name, args)) = last_segment(ty) else {
        return false;
    };
    if args.is_none() {
        return INTEGERS.contains(&name.as_str())
            || matches!(name.as_str(), "String" | "bool" | "f32" | "f64" | "Timestamp" | "AttributeValue");
    }
    let Some(args) = generic_args(ty, &name) else {
        return false;
    };
    match (name.as_str(), args.as_slice()) {
        ("Option" | "Vec" | "Box", [t]) => is_builtin_attribute(t),
        ("HashMap" | "BTreeMap", [k, v]) => plain_name(k).as_deref() == Some("String") && is_builtin_attribute(v),
        ("HashSet" | "BTreeSet", [t]) => {
            plain_name(t).is_some_and(|n| n == "String" || INTEGERS.contains(&n.as_str()))
                || generic_args(t, "Vec").is_some_and(|a| a.len() == 1 && plain_name(a[0]).as_deref() == Some("u8"))
        }
        _ => false,
    }
}

/// The span of the first token of `ty`.
pub fn first_span(ty: &Type) -> Span {
    ty.to_token_stream()
        .into_iter()
        .next()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => g.span_open(),
            other => other.span(),
        })
        .unwrap_or_else(Span::call_site)
}

/// The span of the last token of `ty`. Bounds spanned this way make the compiler underline the
/// whole type (from its first token to this one), where `Spanned::span` gives only the first
/// token on stable.
pub fn last_span(ty: &Type) -> Span {
    ty.to_token_stream()
        .into_iter()
        .last()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => g.span_close(),
            other => other.span(),
        })
        .unwrap_or_else(Span::call_site)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> Type {
        syn::parse_str(s).unwrap()
    }
    fn kind(s: &str) -> &'static str {
        match key_part(&ty(s)) {
            KeyPartType::Builtin => "builtin",
            KeyPartType::Custom(_) => "custom",
            KeyPartType::Rejected(_) => "rejected",
            KeyPartType::Binary => "binary",
        }
    }

    #[test]
    fn key_parts() {
        for t in [
            "String",
            "u64",
            "i128",
            "bool",
            "Timestamp",
            "dynamo_entity::Timestamp",
            "Option<u32>",
            "std::string::String",
        ] {
            assert_eq!(kind(t), "builtin", "{t}");
        }
        for t in ["SkillId", "Option<SkillStatus>", "crate::Id", "Box<str>", "<T as X>::Y"] {
            assert_eq!(kind(t), "custom", "{t}");
        }
        for t in ["Vec<u8>", "Option<Vec<u8>>", "std::vec::Vec<u8>"] {
            assert_eq!(kind(t), "binary", "{t}");
        }
        for t in [
            "Vec<String>",
            "HashMap<String, u8>",
            "f64",
            "Option<f32>",
            "(u8, u8)",
            "()",
            "[u8; 4]",
            "&'static str",
            "Option<Option<u8>>",
            "BTreeSet<String>",
        ] {
            assert_eq!(kind(t), "rejected", "{t}");
        }
    }

    #[test]
    fn unique_fields() {
        for t in ["String", "Option<String>", "u64", "Vec<u8>", "Option<Vec<u8>>", "UserId", "Timestamp", "bool"] {
            assert!(unique_rejection(&ty(t)).is_none(), "{t}");
        }
        for t in ["f64", "Option<f32>", "Vec<String>", "BTreeSet<String>", "HashMap<String, u8>", "(u8, u8)"] {
            assert!(unique_rejection(&ty(t)).is_some(), "{t}");
        }
        assert!(unique_rejection(&ty("Option<Option<String>>")).unwrap().contains("two kinds of absence"));
    }

    #[test]
    fn maintained_types() {
        for t in ["u64", "i32", "u8", "usize", "core::primitive::u64"] {
            assert!(is_integer(&ty(t)), "{t}");
        }
        for t in ["f64", "String", "Option<u64>", "Version", "Timestamp"] {
            assert!(!is_integer(&ty(t)), "{t}");
        }
        assert!(is_timestamp(&ty("Timestamp")) && is_timestamp(&ty("dynamo_entity::Timestamp")));
        assert!(!is_timestamp(&ty("Option<Timestamp>")) && !is_timestamp(&ty("String")));
    }

    #[test]
    fn options() {
        assert!(option_inner(&ty("Option<u8>")).is_some());
        assert!(option_inner(&ty("std::option::Option<u8>")).is_some());
        assert!(option_inner(&ty("u8")).is_none());
    }

    #[test]
    fn builtin_attributes() {
        for t in [
            "String",
            "Vec<u8>",
            "Option<Vec<String>>",
            "HashMap<String, Vec<i64>>",
            "BTreeSet<String>",
            "HashSet<Vec<u8>>",
            "f64",
        ] {
            assert!(is_builtin_attribute(&ty(t)), "{t}");
        }
        for t in ["SkillId", "Vec<Address>", "HashMap<u8, String>", "BTreeSet<bool>", "(u8,)", "serde_json::Value"] {
            assert!(!is_builtin_attribute(&ty(t)), "{t}");
        }
    }
}
