//! The model of a `#[derive(TableDef)]` declaration: its entities, its indexes and the attribute
//! and index names they resolve to.

use quote::ToTokens;
use syn::{Data, DeriveInput, Ident, Path, Visibility};

use crate::internals::attr::table::{self as attr, Decl, Named};
use crate::internals::ctxt::Ctxt;
use crate::internals::model::{IndexKind, KeyRole, MAX_GSI, MAX_LSI};

/// A type deriving `Table`.
pub struct Table<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    /// The table's name: the type name without `r#`.
    pub name: String,
    pub decl: Decl,
    /// The listed entities (none when `entities(...)` is missing, an error).
    pub entities: Vec<Path>,
    pub names: Names,
}

impl<'a> Table<'a> {
    /// Builds the model, recording the errors of the input's shape and of its attributes.
    pub fn from_syn(input: &'a DeriveInput, cx: &Ctxt) -> Table<'a> {
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(&input.generics, "a table declaration cannot be generic");
        }
        if !matches!(input.data, Data::Struct(_)) {
            cx.error_spanned_by(
                &input.ident,
                "#[derive(TableDef)] goes on a struct, usually a unit struct: `pub struct MyTable;`",
            );
        }
        let decl = attr::table_attrs(input, cx);
        let entities = decl.entities.clone().unwrap_or_default();
        let names = Names::of(&decl);
        Table {
            ident: &input.ident,
            vis: &input.vis,
            name: syn::ext::IdentExt::unraw(&input.ident).to_string(),
            decl,
            entities,
            names,
        }
    }
}

/// The table's attribute and index names: the declared ones, the defaults elsewhere.
pub struct Names {
    pub pk: String,
    pub sk: String,
    pub entity_type: String,
    /// Per GSI number - 1: index name, partition key, sort key.
    pub gsi: Vec<(String, String, String)>,
    /// Per LSI number - 1: index name, sort key.
    pub lsi: Vec<(String, String)>,
    pub inverted: String,
}

impl Names {
    /// The names of a declaration.
    pub fn of(decl: &Decl) -> Names {
        let or = |n: &Option<Named>, d: String| n.as_ref().map_or(d, |n| n.value.clone());
        let index = |kind: IndexKind| kind.default_name().expect("a secondary index");
        let mut names = Names {
            pk: or(&decl.pk, KeyRole::Pk.default_name()),
            sk: or(&decl.sk, KeyRole::Sk.default_name()),
            entity_type: or(&decl.entity_type, "_type".to_owned()),
            gsi: (1..=MAX_GSI)
                .map(|n| (index(IndexKind::Gsi(n)), KeyRole::GsiPk(n).default_name(), KeyRole::GsiSk(n).default_name()))
                .collect(),
            lsi: (1..=MAX_LSI).map(|n| (index(IndexKind::Lsi(n)), KeyRole::LsiSk(n).default_name())).collect(),
            inverted: index(IndexKind::Inverted),
        };
        for d in &decl.indexes {
            match d.kind {
                IndexKind::Gsi(n) => {
                    let g = &mut names.gsi[usize::from(n) - 1];
                    g.0 = or(&d.name, g.0.clone());
                    g.1 = or(&d.pk_name, g.1.clone());
                    g.2 = or(&d.sk_name, g.2.clone());
                }
                IndexKind::Lsi(n) => {
                    let l = &mut names.lsi[usize::from(n) - 1];
                    l.0 = or(&d.name, l.0.clone());
                    l.1 = or(&d.sk_name, l.1.clone());
                }
                IndexKind::Inverted => names.inverted = or(&d.name, names.inverted.clone()),
                IndexKind::Primary => {}
            }
        }
        names
    }

    /// The name of the key attribute `role`.
    pub fn key(&self, role: KeyRole) -> &str {
        match role {
            KeyRole::Pk => &self.pk,
            KeyRole::Sk => &self.sk,
            KeyRole::GsiPk(n) => &self.gsi[usize::from(n) - 1].1,
            KeyRole::GsiSk(n) => &self.gsi[usize::from(n) - 1].2,
            KeyRole::LsiSk(n) => &self.lsi[usize::from(n) - 1].1,
        }
    }

    /// The partition (`true`) or sort key attribute of `kind`.
    pub fn attribute(&self, kind: IndexKind, partition: bool) -> &str {
        self.key(if partition { kind.partition() } else { kind.sort() })
    }

    /// The index name of `kind`, a secondary index.
    pub fn index(&self, kind: IndexKind) -> &str {
        match kind {
            IndexKind::Gsi(n) => &self.gsi[usize::from(n) - 1].0,
            IndexKind::Lsi(n) => &self.lsi[usize::from(n) - 1].0,
            IndexKind::Inverted => &self.inverted,
            IndexKind::Primary => unreachable!("the table is no secondary index"),
        }
    }

    /// Whether every name is the default one.
    pub fn is_default(decl: &Decl) -> bool {
        decl.pk.is_none()
            && decl.sk.is_none()
            && decl.entity_type.is_none()
            && decl.indexes.iter().all(|d| d.name.is_none() && d.pk_name.is_none() && d.sk_name.is_none())
    }

    /// Whether `n` is a key attribute of the table: its own keys, or any GSI's or LSI's
    /// (declared or not: an undeclared index's names are the defaults).
    pub fn is_key_attribute(&self, n: &str) -> bool {
        n == self.pk
            || n == self.sk
            || self.gsi.iter().any(|(_, pk, sk)| n == pk || n == sk)
            || self.lsi.iter().any(|(_, sk)| n == sk)
    }
}

/// The `NonKeyAttributes` of an `INCLUDE` projection: the entity type attribute first (typed
/// queries through the index tell items apart by it), then the names given.
pub fn include_names(names: &[(String, proc_macro2::Span)], type_attribute: &str) -> Vec<String> {
    // A table without a type attribute (`entity_type = none`) projects only the names given.
    let mut out: Vec<String> = Some(type_attribute).filter(|t| !t.is_empty()).map(str::to_owned).into_iter().collect();
    out.extend(names.iter().map(|(n, _)| n.clone()).filter(|n| n != type_attribute));
    out
}

/// A path as written, without the spaces of its token stream: `other::Apple`.
pub fn compact(p: &Path) -> String {
    p.to_token_stream().to_string().replace(' ', "")
}
