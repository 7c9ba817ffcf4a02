//! Validation of a `#[derive(TableDef)]` declaration within itself. The checks across its entities
//! need their schemas, so they run in constant evaluation: see `crate::expand::table_checks`.

use proc_macro2::Span;
use quote::ToTokens;
use syn::Path;

use crate::internals::ast::table::{Names, Table, compact, include_names};
use crate::internals::attr::table::{Decl, Named};
use crate::internals::ctxt::Ctxt;
use crate::internals::model::{INDEX_NAME_CHARS, IndexKind, KeyRole, MAX_KEY_NAME_BYTES, MAX_PROJECTED, Projection};

/// Checks a table declaration.
pub fn check(table: &Table, cx: &Ctxt) {
    check_names(&table.decl, &table.names, cx);
    check_decl(&table.decl, &table.entities, &table.names, cx);
    check_hierarchy(&table.decl, &table.entities, cx);
}

/// `hierarchy(...)`: every parent and child is a listed entity, and no entity is its own child.
fn check_hierarchy(decl: &Decl, entities: &[Path], cx: &Ctxt) {
    let listed: Vec<String> = entities.iter().map(compact).collect();
    for (parent, children) in &decl.hierarchy {
        for p in std::iter::once(parent).chain(children) {
            let name = compact(p);
            if !listed.contains(&name) {
                cx.error_spanned_by(
                    p,
                    format!("`{name}` is in `hierarchy(...)` but not in `entities(...)`: list it there too"),
                );
            }
        }
        for c in children {
            if compact(c) == compact(parent) {
                cx.error_spanned_by(c, format!("`{}` cannot be a child of itself", compact(c)));
            }
        }
    }
}

/// The declared names: each key attribute name 1 to 255 bytes, each index name 3 to 255
/// characters of `a-z A-Z 0-9 _ . -` (DynamoDB's rules), no two roles sharing an attribute
/// name, no two indexes sharing an index name.
fn check_names(decl: &Decl, names: &Names, cx: &Ctxt) {
    // (name, role, span of the declaration when declared)
    let mut roles: Vec<(&str, String, Option<Span>)> = vec![
        (&names.pk, KeyRole::Pk.describe(), decl.pk.as_ref().map(|n| n.span)),
        (&names.sk, KeyRole::Sk.describe(), decl.sk.as_ref().map(|n| n.span)),
    ];
    // `entity_type = none` names no attribute (a written `entity_type = ""` is an empty name).
    if !decl.entity_type_none {
        roles.push((
            &names.entity_type,
            "the entity type attribute".to_owned(),
            decl.entity_type.as_ref().map(|n| n.span),
        ));
    }
    for d in &decl.indexes {
        let span = |n: &Option<Named>| n.as_ref().map(|n| n.span);
        match d.kind {
            IndexKind::Gsi(_) => {
                let (pk, sk) = (d.kind.partition(), d.kind.sort());
                roles.push((names.key(pk), pk.describe(), span(&d.pk_name)));
                roles.push((names.key(sk), sk.describe(), span(&d.sk_name)));
            }
            IndexKind::Lsi(_) => roles.push((names.key(d.kind.sort()), d.kind.sort().describe(), span(&d.sk_name))),
            IndexKind::Inverted | IndexKind::Primary => {}
        }
    }
    for (i, (name, role, span)) in roles.iter().enumerate() {
        let Some(span) = span else { continue };
        if name.is_empty() {
            cx.error_at(*span, format!("the name of {role} is empty; a key attribute name is 1 to 255 bytes"));
            continue;
        }
        if name.len() > MAX_KEY_NAME_BYTES {
            cx.error_at(
                *span,
                format!(
                    "the name of {role} is {} bytes; DynamoDB allows key attribute names of at most \
                     {MAX_KEY_NAME_BYTES} bytes",
                    name.len()
                ),
            );
            continue;
        }
        if let Some((_, other, _)) = roles[..i].iter().find(|(n, ..)| n == name) {
            cx.error_at(
                *span,
                format!(
                    "`{name}` already names {other}; {role} needs an attribute of its own, or writing one would \
                     overwrite the other"
                ),
            );
        }
    }
    // A default name that a later declared name takes: reported at the declared one above; a
    // declared name that a later default takes, here.
    for (i, (name, role, span)) in roles.iter().enumerate() {
        if span.is_some() || name.is_empty() {
            continue;
        }
        if let Some((_, other, Some(at))) = roles[..i].iter().find(|(n, _, s)| n == name && s.is_some()) {
            cx.error_at(
                *at,
                format!("`{name}` is also the attribute of {role}; {other} needs an attribute of its own"),
            );
        }
    }
    let mut seen: Vec<(&str, IndexKind)> = Vec::new();
    for d in &decl.indexes {
        let name = names.index(d.kind);
        if let Some(n) = &d.name {
            let valid = INDEX_NAME_CHARS.contains(&name.len())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
            if !valid {
                cx.error_at(
                    n.span,
                    format!(
                        "`{name}` is not an index name DynamoDB accepts: 3 to 255 characters of a-z, A-Z, 0-9, \
                         `_`, `-` and `.`"
                    ),
                );
                continue;
            }
        }
        if let Some((_, other)) = seen.iter().find(|(n, _)| *n == name) {
            let at = d.name.as_ref().map_or_else(|| d.key.span(), |n| n.span);
            cx.error_at(
                at,
                format!("`{name}` is already the name of {}; a table's index names are distinct", other.label()),
            );
        }
        seen.push((name, d.kind));
    }
}

fn check_decl(decl: &Decl, entities: &[Path], table_names: &Names, cx: &Ctxt) {
    let key = |p: &Path| p.to_token_stream().to_string();
    for (i, p) in entities.iter().enumerate() {
        if entities[..i].iter().any(|q| key(q) == key(p)) {
            cx.error_spanned_by(p, format!("`{}` is listed twice", compact(p)));
            continue;
        }
        if let Some(last) = p.segments.last() {
            if let Some(q) = entities[..i].iter().find(|q| q.segments.last().is_some_and(|s| s.ident == last.ident)) {
                cx.error_spanned_by(
                    p,
                    format!(
                        "`{}` and `{}` would both be the variant `{}` of the table's item enum; list one type per name",
                        compact(q),
                        compact(p),
                        last.ident
                    ),
                );
            }
        }
    }
    let mut projected = 0;
    for (i, d) in decl.indexes.iter().enumerate() {
        if decl.indexes[..i].iter().any(|o| o.kind == d.kind) {
            cx.error_spanned_by(&d.key, format!("`{}` is given twice", d.kind.key()));
        }
        if let Projection::Include(names) = &d.projection {
            for (j, (n, span)) in names.iter().enumerate() {
                if names[..j].iter().any(|(m, _)| m == n) {
                    cx.error_at(*span, format!("`{n}` is already included"));
                } else if table_names.is_key_attribute(n) {
                    cx.error_at(
                        *span,
                        format!("`{n}` is a key attribute: every projection holds the table's and the index's keys"),
                    );
                }
            }
            projected += include_names(names, &table_names.entity_type).len();
            if projected > MAX_PROJECTED {
                cx.error_spanned_by(
                    &d.key,
                    format!(
                        "the INCLUDE projections of this table name {projected} attributes (with `{}`, added to \
                         each); DynamoDB allows {MAX_PROJECTED} over all secondary indexes of a table",
                        table_names.entity_type
                    ),
                );
            }
        }
    }
}
