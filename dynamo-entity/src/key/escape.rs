//! The text forms of a key part: `#` and `%` escaped inside a part (reversibly), and the
//! hexadecimal text a binary part is carried in while its key is built.

use std::borrow::Cow;

#[cfg(doc)]
use super::KeyStyle;
use super::{DELIMITER, ESCAPE};

/// Appends `part` to `out`, escaping `#` as `%23` and `%` as `%25`.
pub fn escape_into(part: &str, out: &mut String) {
    escape_delimited(part, DELIMITER, *b"23", out);
}

/// Appends `part` to `out`, escaping `delimiter` (an ASCII character) as `%` and `code`, its
/// two uppercase hex digits (`%23` for `#`, `%7C` for `|`), and `%` as `%25`; every other
/// character as it is. The one escape of key parts: [`escape_into`] for `#`, and the keys of
/// a [`KeyStyle`] with another delimiter.
#[inline]
pub(crate) fn escape_delimited(part: &str, delimiter: char, code: [u8; 2], out: &mut String) {
    // An ASCII delimiter is one byte, which no other character's UTF-8 contains.
    let delimiter = u8::try_from(delimiter).ok().filter(u8::is_ascii);
    let bytes = part.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let code = match b {
            b'%' => *b"25",
            _ if Some(b) == delimiter => code,
            _ => continue,
        };
        // `b` is ASCII, so `i` and `i + 1` are character boundaries.
        out.push_str(&part[start..i]);
        out.push(ESCAPE);
        out.push(char::from(code[0]));
        out.push(char::from(code[1]));
        start = i + 1;
    }
    out.push_str(&part[start..]);
}

/// Reverses [`escape_into`]. `None` when a `%` is not followed by `23` or `25`, which an
/// encoder of this crate never writes.
pub fn unescape(part: &str) -> Option<Cow<'_, str>> {
    unescape_delimited(part, DELIMITER, *b"23")
}

/// Reverses [`escape_delimited`] of `delimiter` and its hex digits `code`: `None` for a `%`
/// that starts neither `%25` nor the delimiter's escape.
pub(crate) fn unescape_delimited(part: &str, delimiter: char, code: [u8; 2]) -> Option<Cow<'_, str>> {
    if !part.contains(ESCAPE) {
        return Some(Cow::Borrowed(part));
    }
    let mut out = String::with_capacity(part.len());
    let mut rest = part;
    while let Some(i) = rest.find(ESCAPE) {
        out.push_str(&rest[..i]);
        match rest.as_bytes().get(i + 1..i + 3) {
            Some(b"25") => out.push(ESCAPE),
            Some(c) if c == code => out.push(delimiter),
            _ => return None,
        }
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

/// Whether `encoded` is `part` as [`escape_into`] writes it, compared without writing.
#[inline]
pub(crate) fn escaped_eq(part: &str, encoded: &str) -> bool {
    let p = part.as_bytes();
    if p.len() == encoded.len() {
        // Escaping only lengthens: equal lengths mean nothing was escaped.
        return p == encoded.as_bytes() && !p.iter().any(|&b| b == b'#' || b == b'%');
    }
    let mut e = encoded.as_bytes();
    let mut start = 0;
    for (i, &b) in p.iter().enumerate() {
        let rep: &[u8] = match b {
            b'#' => b"%23",
            b'%' => b"%25",
            _ => continue,
        };
        match e.strip_prefix(&p[start..i]).and_then(|r| r.strip_prefix(rep)) {
            Some(r) => e = r,
            None => return false,
        }
        start = i + 1;
    }
    e == &p[start..]
}

/// Appends `bytes` as lowercase hexadecimal, two digits a byte: the text form of a binary key
/// while it is built, whose string order and prefixes are the bytes'.
pub(crate) fn hex_into(bytes: &[u8], out: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
}

/// The bytes of hexadecimal text (either case; a key style may have folded it), `None` for an
/// odd length or a character that is not a hexadecimal digit.
pub(crate) fn hex_decode(text: &str) -> Option<Vec<u8>> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let b = text.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    b.chunks_exact(2).map(|p| Some(digit(p[0])? << 4 | digit(p[1])?)).collect()
}
