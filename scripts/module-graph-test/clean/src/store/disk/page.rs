pub struct Page;

impl Page {
    /// Writes the page out; the cache (`crate::store::Cache`) calls it.
    pub fn flush(&self) {}
}
