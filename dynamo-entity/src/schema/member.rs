//! [`EntityOf`]: which entities a table declaration lists, for the handle bound to it
//! ([`Table<D>`](crate::Table)).

/// `Self` is one of the entities the table declaration `D` lists in
/// `#[table(entities(...))]`. Implemented by `#[derive(TableDef)]` for each entity it lists,
/// and by nothing else; a [`Table<D>`](crate::Table) accepts only the entities that implement
/// it, so an entity left out of the declaration, or one of another declaration, does not
/// compile where a `Table<D>` writes or reads it.
///
/// The declaration's checks hold for every entity that implements it: its keys cannot collide
/// with another listed entity's, and it uses `D`'s attribute names and type attribute
/// (`#[entity(table = D)]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an entity of table `{D}`",
    label = "`{D}` does not list `{Self}` in `entities(...)`",
    note = "a `Table<{D}>` accepts only the entities of `#[table(entities(...))]` on `{D}`: add `{Self}` to \
            `entities(...)` (and `#[entity(table = {D})]` to `{Self}`), or write it through an untyped `Table`"
)]
pub trait EntityOf<D> {}
