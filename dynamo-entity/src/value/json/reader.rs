//! The lexical layer of the JSON reader: [`Reader`] over a body checked as UTF-8 once, its
//! strings (as slices of the body, or unescaped), separators, literals, base64 blobs and a
//! value skipped whole; [`Malformed`], the error of every reader; the depths the SDK allows.
//! The readers that build values ([`build`](super::build)), write them over a reused item
//! ([`reuse`](super::reuse)) and only check them ([`check`](super::check)) are `Reader`
//! methods in their own files.

use aws_sdk_dynamodb::primitives::Blob;

/// Why a body could not be read: the byte offset and what was wrong there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed {
    /// The byte offset in the body.
    pub at: usize,
    /// What was expected or found.
    pub reason: &'static str,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {} of the answer", self.reason, self.at)
    }
}

impl std::error::Error for Malformed {}

/// The SDK refuses a value, set, list or map read at this depth or deeper (its count starts at
/// 0 for the answer, 1 for `Items`, 2 for an item, 3 for an item's attribute value).
pub(super) const MAX_DEPTH: u32 = 128;
/// The depth of the attribute values of an item of `Items`.
pub(super) const ATTRIBUTE_DEPTH: u32 = 3;
/// The depth of the attribute values of an answer's `Item` or `Attributes`, one level nearer
/// the answer (the item is at depth 1).
pub(super) const MEMBER_ATTRIBUTE_DEPTH: u32 = 2;
/// The depth of the attribute values of an item of a `BatchGetItem`'s `Responses` (the map 1,
/// a table's list 2, an item 3) or of a `TransactGetItems`' (the list 1, a response 2, its
/// `Item` 3).
pub(super) const NESTED_ATTRIBUTE_DEPTH: u32 = 4;

/// A position in a body of JSON, read forward.
#[derive(Debug)]
pub(super) struct Reader<'a> {
    /// The body's bytes.
    pub(super) b: &'a [u8],
    /// The same body as text.
    pub(super) s: &'a str,
    /// The offset of the next byte to read.
    pub(super) i: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `b`, once `b` is checked as UTF-8.
    ///
    /// # Errors
    /// [`Malformed`] at the first byte that is not UTF-8 (the SDK refuses such a body too).
    pub(super) fn new(b: &'a [u8]) -> Result<Reader<'a>, Malformed> {
        match std::str::from_utf8(b) {
            Ok(s) => Ok(Reader { b, s, i: 0 }),
            Err(e) => Err(Malformed { at: e.valid_up_to(), reason: "a body that is not UTF-8" }),
        }
    }

    pub(super) fn at(&self, at: usize, reason: &'static str) -> Malformed {
        Malformed { at, reason }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    pub(super) fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    /// Skips JSON whitespace (space, tab, CR, LF).
    pub(super) fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\r' | b'\n') = self.peek() {
            self.i += 1;
        }
    }

    pub(super) fn expect(&mut self, c: u8, reason: &'static str) -> Result<(), Malformed> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.at(self.i, reason))
        }
    }

    /// Reads `word` (`null`, `true`, `false`) when it is next and ends there (whitespace,
    /// `,`, `}`, `]` or the end follows, as the SDK requires); `false` otherwise, nothing read.
    pub(super) fn literal(&mut self, word: &[u8]) -> bool {
        let end = self.i + word.len();
        if self.b.get(self.i..end) != Some(word) {
            return false;
        }
        match self.b.get(end) {
            None | Some(b' ' | b'\t' | b'\r' | b'\n' | b',' | b'}' | b']') => {
                self.i = end;
                true
            }
            _ => false,
        }
    }

    /// The bytes between the quotes of the string that starts here, escapes as written, after
    /// checking that the string ends and holds no control character.
    pub(super) fn raw_string(&mut self) -> Result<&'a [u8], Malformed> {
        self.escaped_string().map(|(raw, _)| raw)
    }

    /// As [`raw_string`](Self::raw_string), and whether the string holds an escape.
    pub(super) fn escaped_string(&mut self) -> Result<(&'a [u8], bool), Malformed> {
        self.expect(b'"', "expected a string")?;
        let start = self.i;
        let b = self.b;
        let mut i = start;
        let mut escaped = false;
        loop {
            i = skip_plain(b, i);
            match b.get(i) {
                Some(b'"') => {
                    self.i = i + 1;
                    return Ok((&b[start..i], escaped));
                }
                Some(b'\\') => {
                    escaped = true;
                    i += 2;
                }
                Some(0..=0x1f) => return Err(self.at(i, "a control character in a string")),
                Some(_) => i += 1,
                None => return Err(self.at(b.len(), "a string that does not end")),
            }
        }
    }

    /// The text of `raw`, a string [`escaped_string`](Self::escaped_string) just read (its
    /// closing quote at `self.i - 1`): a slice of the body, checked once as a whole.
    pub(super) fn text_of(&self, raw: &[u8]) -> Result<&'a str, Malformed> {
        let end = self.i - 1;
        let start = end - raw.len();
        // The quotes around it are ASCII, so both ends are character boundaries.
        self.s.get(start..end).ok_or_else(|| self.at(start, "a string that is not UTF-8"))
    }

    /// The string that starts here, unescaped, in a `String` of its own.
    pub(super) fn string(&mut self) -> Result<String, Malformed> {
        let start = self.i + 1;
        let (raw, escaped) = self.escaped_string()?;
        let text = self.text_of(raw)?;
        if !escaped {
            return Ok(text.to_owned());
        }
        let first = text.find('\\').unwrap_or(text.len());
        unescape(text, first).map_err(|(off, reason)| self.at(start + off, reason))
    }

    /// The string that starts here, unescaped, into `out` in place of its text.
    pub(super) fn string_into(&mut self, out: &mut String) -> Result<(), Malformed> {
        let start = self.i + 1;
        let (raw, escaped) = self.escaped_string()?;
        let text = self.text_of(raw)?;
        out.clear();
        if !escaped {
            out.push_str(text);
            return Ok(());
        }
        let first = text.find('\\').unwrap_or(text.len());
        unescape_into(text, first, out).map_err(|(off, reason)| self.at(start + off, reason))
    }

    /// The rest of a JSON array or object after its opening bracket: elements separated by
    /// `,` up to `close`, each read by `element` (whitespace around them skipped). `separator`
    /// is the error when an element is followed by neither.
    pub(super) fn delimited(
        &mut self,
        close: u8,
        separator: &'static str,
        mut element: impl FnMut(&mut Self) -> Result<(), Malformed>,
    ) -> Result<(), Malformed> {
        self.ws();
        if self.peek() == Some(close) {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            element(self)?;
            self.ws();
            match self.next() {
                Some(b',') => {}
                Some(c) if c == close => return Ok(()),
                _ => return Err(self.at(self.i.saturating_sub(1), separator)),
            }
        }
    }

    /// The `:` between a member's name and its value, with the whitespace around it.
    pub(super) fn colon(&mut self) -> Result<(), Malformed> {
        self.ws();
        self.expect(b':', "expected ':'")?;
        self.ws();
        Ok(())
    }

    pub(super) fn boolean(&mut self) -> Result<bool, Malformed> {
        if self.literal(b"true") {
            Ok(true)
        } else if self.literal(b"false") {
            Ok(false)
        } else {
            Err(self.at(self.i, "expected true or false"))
        }
    }

    /// A base64 string, decoded as the SDK decodes it: the text as written, escapes included.
    pub(super) fn blob(&mut self) -> Result<Blob, Malformed> {
        let start = self.i + 1;
        let raw = self.raw_string()?;
        let text = self.text_of(raw)?;
        let bytes = aws_smithy_types::base64::decode(text).map_err(|_| self.at(start, "invalid base64"))?;
        Ok(Blob::new(bytes))
    }

    /// Skips one JSON value of any kind, strings' escapes and nesting followed; the value's
    /// contents are not checked (the SDK reads them from the body this reader leaves).
    pub(super) fn skip_value(&mut self) -> Result<(), Malformed> {
        let mut open = 0usize;
        loop {
            self.ws();
            match self.peek() {
                Some(b'"') => {
                    self.raw_string()?;
                }
                Some(b'{' | b'[') => {
                    open += 1;
                    self.i += 1;
                    continue;
                }
                Some(b'}' | b']') if open > 0 => {
                    open -= 1;
                    self.i += 1;
                }
                Some(b',' | b':') if open > 0 => {
                    self.i += 1;
                    continue;
                }
                Some(c) if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.') => {
                    while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.')) {
                        self.i += 1;
                    }
                }
                _ => return Err(self.at(self.i, "expected a value")),
            }
            if open == 0 {
                return Ok(());
            }
        }
    }
}

/// The first byte at or after `i` that ends a string's plain run: a quote, a backslash, a
/// control character, or the end (`b.len()`). Eight bytes at a time, then byte by byte.
pub(super) fn skip_plain(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
        // A byte of `x` is zero (or, for `w - 0x20`, below 0x20) where the result's high bit is set.
        let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
        let special = zero(w ^ (ONES * u64::from(b'"')))
            | zero(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGH);
        if special != 0 {
            // The lowest marked byte is the first special one: a borrow only marks bytes above
            // a byte that is special itself.
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        i += 1;
    }
    i.min(b.len())
}

/// `text` unescaped, its first backslash at byte `first`. The error: the offset in `text` and
/// why.
pub(super) fn unescape(text: &str, first: usize) -> Result<String, (usize, &'static str)> {
    let mut out = String::with_capacity(text.len());
    unescape_into(text, first, &mut out)?;
    Ok(out)
}

/// [`unescape`], appended to `out`.
pub(super) fn unescape_into(text: &str, first: usize, out: &mut String) -> Result<(), (usize, &'static str)> {
    out.reserve(text.len());
    out.push_str(&text[..first]);
    let b = text.as_bytes();
    let mut i = first;
    while i < b.len() {
        let Some(next) = text[i..].find('\\').map(|n| i + n) else {
            out.push_str(&text[i..]);
            break;
        };
        out.push_str(&text[i..next]);
        i = next + 1;
        let c = match b.get(i) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let high = hex4(b, i + 1).ok_or((next, "an invalid \\u escape"))?;
                i += 4;
                if (0xD800..0xDC00).contains(&high) {
                    if b.get(i + 1..i + 3) != Some(b"\\u") {
                        return Err((next, "a high surrogate without its low one"));
                    }
                    let low = hex4(b, i + 3).ok_or((next, "an invalid \\u escape"))?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err((next, "a high surrogate without its low one"));
                    }
                    i += 6;
                    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                        .ok_or((next, "an invalid surrogate pair"))?
                } else {
                    char::from_u32(high).ok_or((next, "a lone low surrogate"))?
                }
            }
            _ => return Err((next, "an invalid escape")),
        };
        out.push(c);
        i += 1;
    }
    Ok(())
}

/// The four hexadecimal digits at `at`, if they are.
fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = b.get(at..at + 4)?;
    let mut n = 0u32;
    for &d in digits {
        n = n * 16 + char::from(d).to_digit(16)?;
    }
    Some(n)
}
