mod cache;
mod disk;

pub use self::cache::Cache;
