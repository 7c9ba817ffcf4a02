//! [`ConstText`]: the text of a compile-time check's message, composed in constant evaluation.

/// Text composed during constant evaluation: the messages of the table's checks that name what
/// only the entities' schemas know, such as an attribute name, which the derive cannot write
/// into a literal. Shown with `panic!("{}", text.as_str())`; empty when there is nothing to say.
/// Holds up to [`ConstText::CAPACITY`] bytes: a piece that would not fit is left out whole, so
/// the text stays valid UTF-8.
#[derive(Debug, Clone, Copy)]
pub struct ConstText {
    buf: [u8; ConstText::CAPACITY],
    len: usize,
}

impl ConstText {
    /// The most bytes the text holds (eight 255-byte key attribute names and the prose around
    /// them fit).
    pub const CAPACITY: usize = 4096;

    /// The empty text.
    pub const fn new() -> ConstText {
        ConstText { buf: [0; ConstText::CAPACITY], len: 0 }
    }

    /// Appends `piece`, or nothing when it would not fit.
    pub const fn push(&mut self, piece: &str) {
        let bytes = piece.as_bytes();
        if self.len + bytes.len() > ConstText::CAPACITY {
            return;
        }
        let mut i = 0;
        while i < bytes.len() {
            self.buf[self.len + i] = bytes[i];
            i += 1;
        }
        self.len += bytes.len();
    }

    /// Whether nothing was pushed.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        // Whole `str` pieces only, so always valid; the `Err` arm is never taken.
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(text) => text,
            Err(_) => "",
        }
    }
}

impl Default for ConstText {
    fn default() -> ConstText {
        ConstText::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_text_keeps_whole_pieces() {
        const TEXT: ConstText = {
            let mut t = ConstText::new();
            t.push("entity `");
            t.push("Gebühr");
            t.push("`");
            t
        };
        assert_eq!(TEXT.as_str(), "entity `Gebühr`");
        assert!(!TEXT.is_empty());
        let mut t = ConstText::new();
        assert!(t.is_empty());
        let long = "é".repeat(ConstText::CAPACITY / 2 - 1);
        t.push(&long);
        t.push("éé");
        t.push("!");
        assert_eq!(t.as_str().len(), ConstText::CAPACITY - 1);
        assert!(t.as_str().ends_with("é!"));
    }
}
