// Not imports: a comment naming crate::batch::Frame, a string, test code, a doc-only import.
#[cfg(doc)]
use crate::batch::Frame;

const NOTE: &str = "crate::batch::Frame";

/* Nor in a block comment: crate::batch::Frame */
pub fn encode() {
    let _ = NOTE;
    self::detail::pad();
}

mod detail {
    pub fn pad() {}
}

#[cfg(test)]
mod tests {
    use crate::batch::Frame;

    #[test]
    fn holds() {
        let _ = Frame;
    }
}

/// Literals that would show a path to a reader that took them for code.
pub fn literals<'a>(s: &'a str) -> (char, &'a str, &'static str, &'static str) {
    ('"', s, "crate::batch::Frame", r#"" crate::batch::Frame ""#)
}
