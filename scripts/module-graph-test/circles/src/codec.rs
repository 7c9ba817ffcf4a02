// Not imports: a comment naming crate::store::Cache, a string, test code, a doc-only import.
#[cfg(doc)]
use crate::store::Cache;

const NOTE: &str = "crate::store::Cache";

pub fn encode() {
    let _frame = crate::batch::Frame;
    let _ = NOTE;
    self::detail::pad();
}

mod detail {
    pub fn pad() {}
}

#[cfg(test)]
mod tests {
    use crate::store::Cache;

    #[test]
    fn holds() {
        let _ = Cache::new();
    }
}
