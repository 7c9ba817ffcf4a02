//! The tree of `../circles` without the three imports that close its circles. What would close
//! them again is there in forms that are no imports: comments, a string, test code, a doc-only
//! import, and a parent using the files of its own folder.

mod batch;
mod clock;
mod codec;
#[doc(hidden)]
#[path = "shim_impl.rs"]
pub mod shim;
mod store;

pub use batch::Frame;
pub use store::Cache;
