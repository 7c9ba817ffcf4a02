pub struct Page;

impl Page {
    pub fn flush(&self) {
        let _ = crate::store::Cache::new();
    }
}
