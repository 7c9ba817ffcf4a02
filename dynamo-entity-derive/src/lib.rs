//! The derive macros of [`dynamo-entity`](https://docs.rs/dynamo-entity): `#[derive(Entity)]`,
//! `#[derive(KeyPart)]`, `#[derive(Collection)]`, `#[derive(EntityEnum)]` and `#[derive(TableDef)]` (a table
//! declaration whose checks across entities run in constant evaluation).
//!
//! Use them through the `dynamo-entity` crate, which re-exports them and documents the attribute
//! syntax on the traits they implement (`Entity`, `KeyPart`, `TableDef`). The generated code only calls `::dynamo_entity::__private`, so a user needs no other
//! dependency.
//!
//! Every derive is one `pipeline`, laid out like serde_derive and thiserror: `internals`
//! parses the attributes (`attr`) into a typed model (`ast`) in an error-collecting context
//! (`ctxt`) and checks it (`check`); `expand` generates the code of a checked model, and
//! `expand::fallback` what a failed derive emits next to its errors, so that one mistake gives one
//! error.

mod expand;
mod internals;
mod pipeline;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

use crate::internals::ast::collection::Collection;
use crate::internals::ast::entity::Entity;
use crate::internals::ast::key_part::KeyPart;
use crate::internals::ast::table::Table;

/// Implements `dynamo_entity::Entity` and generates typed key, query and field-handle functions.
///
/// The attributes are documented on the trait `dynamo_entity::Entity`
/// ([docs.rs](https://docs.rs/dynamo-entity/latest/dynamo_entity/trait.Entity.html)).
#[proc_macro_derive(Entity, attributes(entity))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    pipeline::derive::<Entity>(&input).into()
}

/// Implements `dynamo_entity::KeyPart` and `dynamo_entity::Attribute` for a newtype or a
/// field-less enum.
///
/// The attributes are documented on the trait `dynamo_entity::KeyPart`
/// ([docs.rs](https://docs.rs/dynamo-entity/latest/dynamo_entity/trait.KeyPart.html)).
#[proc_macro_derive(KeyPart, attributes(key_part))]
pub fn derive_key_part(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    pipeline::derive::<KeyPart>(&input).into()
}

/// Implements `dynamo_entity::Collection` for a struct whose fields take the items of one item
/// collection by entity type (`E`: exactly one, `Option<E>`: at most one, `Vec<E>`: any number).
/// An enum over entity types derives [`EntityEnum`](macro@EntityEnum) instead.
///
/// See the module `dynamo_entity::collection`
/// ([docs.rs](https://docs.rs/dynamo-entity/latest/dynamo_entity/collection/index.html)).
#[proc_macro_derive(Collection)]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    if let syn::Data::Enum(e) = &input.data {
        return shape_error(
            e.enum_token.span,
            "`#[derive(Collection)]` fills a struct from the items of one item collection; an enum with one variant per entity type derives `EntityEnum`",
        );
    }
    pipeline::derive::<Collection>(&input).into()
}

/// Implements `dynamo_entity::EntityEnum` for an enum whose variants each hold one entity type:
/// any item of those types decodes as the variant of its type.
///
/// See the module `dynamo_entity::collection`
/// ([docs.rs](https://docs.rs/dynamo-entity/latest/dynamo_entity/collection/index.html)).
#[proc_macro_derive(EntityEnum)]
pub fn derive_entity_enum(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let shape = match &input.data {
        syn::Data::Enum(_) => None,
        syn::Data::Struct(s) => Some(s.struct_token.span),
        syn::Data::Union(u) => Some(u.union_token.span),
    };
    if let Some(span) = shape {
        return shape_error(
            span,
            "`#[derive(EntityEnum)]` goes on an enum with one variant per entity type; a struct filled from one item collection derives `Collection`",
        );
    }
    pipeline::derive::<Collection>(&input).into()
}

/// A derive on the wrong kind of type: one error on its `struct` / `enum` keyword.
fn shape_error(span: proc_macro2::Span, message: &str) -> TokenStream {
    syn::Error::new(span, message).to_compile_error().into()
}

/// Implements `dynamo_entity::TableDef` for a table declaration: its entities and secondary
/// indexes (with projections), with compile-time checks across the entities (no two can
/// produce the same primary key or read each other's items through a `begins_with` query, no
/// shared type name, every GSI and LSI an entity writes is declared, one type per key
/// attribute), and generates the table-level entity enum `<Name>Item`.
///
/// The attributes are documented on the trait `dynamo_entity::TableDef`
/// ([docs.rs](https://docs.rs/dynamo-entity/latest/dynamo_entity/trait.TableDef.html)).
#[proc_macro_derive(TableDef, attributes(table))]
pub fn derive_table_def(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    pipeline::derive::<Table>(&input).into()
}
