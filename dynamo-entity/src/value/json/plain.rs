//! Plain JSON, not DynamoDB's item format: a small document read whole into a [`Plain`] tree,
//! and strings written as `serde_json` writes them. The library's own small documents (a
//! query's cursor) use it, so that a program needs no `serde_json` to read or write them.

use super::reader::{Malformed, Reader};

/// A JSON value read by [`read_plain`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plain {
    Null,
    Bool(bool),
    /// A number's text, as written (checked against JSON's grammar).
    Number(String),
    String(String),
    Array(Vec<Plain>),
    /// Members in the order written; a name written twice is kept twice.
    Object(Vec<(String, Plain)>),
}

/// How many arrays and objects a plain document may nest inside each other; more is
/// [`Malformed`]. serde_json's limit, so that what it read before reads here: the library's own
/// documents nest four.
const MAX_PLAIN_DEPTH: u32 = 127;

/// The one JSON value `text` holds, with whitespace around it.
///
/// # Errors
/// [`Malformed`]: not UTF-8, not JSON, more than 127 arrays and objects nested, or more after
/// the value.
pub(crate) fn read_plain(text: &[u8]) -> Result<Plain, Malformed> {
    let mut r = Reader::new(text)?;
    r.ws();
    let value = r.plain(0)?;
    r.ws();
    match r.peek() {
        None => Ok(value),
        Some(_) => Err(r.at(r.i, "more after the value")),
    }
}

impl Reader<'_> {
    /// The value here, inside `depth` arrays and objects.
    fn plain(&mut self, depth: u32) -> Result<Plain, Malformed> {
        if matches!(self.peek(), Some(b'[' | b'{')) && depth >= MAX_PLAIN_DEPTH {
            return Err(self.at(self.i, "a value nested too deep"));
        }
        match self.peek() {
            Some(b'"') => self.string().map(Plain::String),
            Some(b'[') => {
                self.i += 1;
                let mut out = Vec::new();
                self.delimited(b']', "expected ',' or ']'", |r| {
                    out.push(r.plain(depth + 1)?);
                    Ok(())
                })?;
                Ok(Plain::Array(out))
            }
            Some(b'{') => {
                self.i += 1;
                let mut out = Vec::new();
                self.delimited(b'}', "expected ',' or '}'", |r| {
                    let name = r.string()?;
                    r.colon()?;
                    out.push((name, r.plain(depth + 1)?));
                    Ok(())
                })?;
                Ok(Plain::Object(out))
            }
            Some(b'-' | b'0'..=b'9') => self.number().map(Plain::Number),
            _ if self.literal(b"null") => Ok(Plain::Null),
            _ if self.literal(b"true") => Ok(Plain::Bool(true)),
            _ if self.literal(b"false") => Ok(Plain::Bool(false)),
            _ => Err(self.at(self.i, "expected a value")),
        }
    }

    /// A number by JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn number(&mut self) -> Result<String, Malformed> {
        let start = self.i;
        let digits = |r: &mut Self| {
            let from = r.i;
            while r.peek().is_some_and(|c| c.is_ascii_digit()) {
                r.i += 1;
            }
            r.i > from
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let whole = self.i;
        if !digits(self) || (self.b[whole] == b'0' && self.i > whole + 1) {
            return Err(self.at(start, "a malformed number"));
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !digits(self) {
                return Err(self.at(start, "a malformed number"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if !digits(self) {
                return Err(self.at(start, "a malformed number"));
            }
        }
        Ok(self.s[start..self.i].to_owned())
    }
}

/// Appends `s` to `out` as a JSON string, quotes included, escaped as `serde_json` escapes it:
/// `"` and `\` with a backslash, the control characters `\b \t \n \f \r` by name and the
/// others as `\u00xx` (lower-case hex); every other character as it is.
pub(crate) fn write_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let b = s.as_bytes();
    let mut plain = 0;
    for (i, &c) in b.iter().enumerate() {
        let short = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x09 => b't',
            0x0a => b'n',
            0x0c => b'f',
            0x0d => b'r',
            0..=0x1f => b'u',
            _ => continue,
        };
        out.extend_from_slice(&b[plain..i]);
        plain = i + 1;
        out.extend_from_slice(&[b'\\', short]);
        if short == b'u' {
            out.extend_from_slice(&[b'0', b'0', HEX[usize::from(c >> 4)], HEX[usize::from(c & 0xf)]]);
        }
    }
    out.extend_from_slice(&b[plain..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let mut every: String = (0u8..0x80).map(char::from).collect();
        every.push_str("é€😀\u{7f}\u{2028}");
        for s in ["", "plain", "a\"b\\c/d", every.as_str()] {
            let mut out = Vec::new();
            write_string(&mut out, s);
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(s).unwrap());
        }
    }

    #[test]
    fn a_document_reads_into_its_tree() {
        let text = br#" {"v":1,"e":"a\"\u00e9","k":[["PK","S","x"]],"s":[null,[],true,false],"n":-0.5e+3} "#;
        let s = |t: &str| Plain::String(t.to_owned());
        assert_eq!(
            read_plain(text),
            Ok(Plain::Object(vec![
                ("v".to_owned(), Plain::Number("1".to_owned())),
                ("e".to_owned(), s("a\"é")),
                ("k".to_owned(), Plain::Array(vec![Plain::Array(vec![s("PK"), s("S"), s("x")])])),
                (
                    "s".to_owned(),
                    Plain::Array(vec![Plain::Null, Plain::Array(vec![]), Plain::Bool(true), Plain::Bool(false)])
                ),
                ("n".to_owned(), Plain::Number("-0.5e+3".to_owned())),
            ]))
        );
    }

    #[test]
    fn malformed_documents_are_refused_where_they_go_wrong() {
        // 128 arrays: the 128th opens at byte 127.
        let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
        let cases: [(&[u8], usize, &str); 10] = [
            (b"", 0, "expected a value"),
            (b"{\"a\":1} x", 8, "more after the value"),
            (b"[1,]", 3, "expected a value"),
            (b"[1 2]", 3, "expected ',' or ']'"),
            (b"{\"a\" 1}", 5, "expected ':'"),
            (b"{a:1}", 1, "expected a string"),
            (b"01", 0, "a malformed number"),
            (b"1.", 0, "a malformed number"),
            (b"-e1", 0, "a malformed number"),
            (deep.as_bytes(), 127, "a value nested too deep"),
        ];
        for (text, at, reason) in cases {
            assert_eq!(read_plain(text), Err(Malformed { at, reason }), "{}", String::from_utf8_lossy(text));
        }
        let fits = &deep[1..deep.len() - 1];
        assert_eq!(read_plain(fits.as_bytes()).map(|_| ()), Ok(()));
        // serde_json's limit is the same.
        assert!(serde_json::from_str::<serde_json::Value>(fits).is_ok());
        assert!(serde_json::from_str::<serde_json::Value>(&deep).is_err());
    }
}
