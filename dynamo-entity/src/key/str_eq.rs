//! Byte equality of two strings in constant evaluation, for the checks `#[derive(TableDef)]`
//! runs at compile time.

/// Byte equality of two strings, usable in constant evaluation.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
