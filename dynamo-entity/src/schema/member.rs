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
            `entities(...)` (an entity of a table that renames its key or type attributes also needs \
            `#[entity(table = {D})]`), or write it through an untyped `Table`"
)]
pub trait EntityOf<D> {}

/// The entities a handle's declaration `Self` accepts in the builders that mix entities
/// (transactions, mixed batches, renders): every entity for the untyped handle's
/// [`Untyped`](crate::table::Untyped), the entities it lists ([`EntityOf`]) for a table
/// declaration. A builder from a [`Table<D>`](crate::Table) carries `D` and asks `D: Admits<E>`
/// of each entity `E` added.
#[diagnostic::on_unimplemented(
    message = "`{E}` is not an entity of table `{Self}`",
    label = "`{Self}` does not list `{E}` in `entities(...)`",
    note = "a `Table<{Self}>` and its builders accept only the entities of `#[table(entities(...))]` on \
            `{Self}`: add `{E}` to `entities(...)` (an entity of a table that renames its key or type attributes \
            also needs `#[entity(table = {Self})]`), or build the request from an untyped `Table` (`table.untyped()`)"
)]
pub trait Admits<E> {}

impl<D: super::TableDef, E: EntityOf<D>> Admits<E> for D {}

/// The item enums a handle's declaration `Self` scans a table into
/// ([`Table::scan_table`](crate::Table::scan_table)): any [`EntityEnum`](crate::EntityEnum)
/// for the untyped handle, the declaration's own item enum (`D::Item`) for a table declaration,
/// so that `shop.scan_table()` needs no type argument. `#[derive(TableDef)]` implements it for
/// its item enum, and by nothing else: scanning a `Table<D>` into another enum is a compile
/// error that names `D`, the enum and the fix.
#[diagnostic::on_unimplemented(
    message = "`{T}` is not the item enum of table `{Self}`",
    label = "a `Table<{Self}>` scans into `{Self}`'s own item enum, not `{T}`",
    note = "leave the type argument out (`table.scan_table()`) to scan into the enum `#[derive(TableDef)]` \
            generates for `{Self}`, or scan from an untyped `Table` (`table.untyped().scan_table::<{T}>()`)"
)]
pub trait TableItems<T> {}
