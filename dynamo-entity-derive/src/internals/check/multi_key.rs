//! The rules of an entity's multi-attribute GSIs, `#[entity(gsiN(pk(a, b), sk(c, d)))]`: DynamoDB
//! allows one to four partition key attributes and up to four sort key attributes, each named
//! once, and they are the entity's own stored fields. (Whether a field's type can be a key
//! attribute is a trait bound of the generated code, `KeyAttribute`, spanned on the type.)

use crate::internals::ast::entity::Entity;
use crate::internals::ctxt::Ctxt;
use crate::internals::suggest;

/// The most attributes one side of a multi-attribute GSI key may name (DynamoDB's limit).
pub const MAX_KEY_ATTRIBUTES: usize = 4;

/// Checks every multi-attribute GSI of `entity`.
pub fn check(entity: &Entity, cx: &Ctxt) {
    for (n, g) in &entity.attrs.multi_gsis {
        let key = &g.key;
        if g.pk.as_ref().is_none_or(|(_, f)| f.is_empty()) {
            let at = g.pk.as_ref().map_or(key, |(side, _)| side);
            cx.error_spanned_by(
                at,
                format!(
                    "`gsi{n}(...)` needs its partition key attributes: `gsi{n}(pk(field, ...), sk(field, ...))`, one \
                     to {MAX_KEY_ATTRIBUTES} fields in `pk(...)`"
                ),
            );
        }
        let mut seen: Vec<String> = Vec::new();
        for (side, fields) in [&g.pk, &g.sk].into_iter().flatten() {
            let what = if side == "pk" { "partition" } else { "sort" };
            if let Some(extra) = fields.get(MAX_KEY_ATTRIBUTES) {
                cx.error_spanned_by(
                    extra,
                    format!(
                        "GSI{n}'s {what} key has {} attributes; DynamoDB allows at most {MAX_KEY_ATTRIBUTES} \
                         {what} key attributes in a multi-attribute GSI",
                        fields.len()
                    ),
                );
            }
            for f in fields {
                let name = syn::ext::IdentExt::unraw(f).to_string();
                if seen.contains(&name) {
                    cx.error_spanned_by(
                        f,
                        format!("field `{name}` appears twice in GSI{n}'s key; each key attribute is named once"),
                    );
                    continue;
                }
                seen.push(name.clone());
                match entity.field(&name) {
                    None => {
                        let hint = suggest::closest(&name, entity.fields.iter().map(|f| f.name.as_str()))
                            .map(|s| format!("; did you mean `{s}`?"))
                            .unwrap_or_default();
                        cx.error_spanned_by(f, format!("`{name}` is not a field of `{}`{hint}", entity.ident));
                    }
                    Some(field) if field.serde => cx.error_spanned_by(
                        f,
                        format!(
                            "field `{name}` is stored through serde (`#[entity(serde)]`), so its attribute is not a \
                             string or number key attribute; a multi-attribute GSI key needs a scalar field"
                        ),
                    ),
                    Some(_) => {}
                }
            }
        }
    }
}
