//! A crate tree with three planted file circles: one through a nested folder
//! (`store/cache.rs` and `store/disk/page.rs`), one through `NAME.rs` beside `NAME/`
//! (`batch/wire.rs` and `codec.rs`), one through a `#[path]` module (`clock.rs` and
//! `shim_impl.rs`). The crate root composes its modules: its own `use`s are no edges.

mod batch;
mod clock;
mod codec;
#[doc(hidden)]
#[path = "shim_impl.rs"]
pub mod shim;
mod store;

pub use batch::Frame;
pub use store::Cache;
