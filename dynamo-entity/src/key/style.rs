//! Key styles: how an entity's keys follow the conventions of another writer.
//!
//! The library's own keys escape the delimiter inside a part (`%23`), keep the case of every
//! value and zero-pad integers. Tables written by other clients often do none of these: ElectroDB
//! 3 lowercases whole keys and never escapes, many services write `ORDER#17` without padding.
//! An entity declares what its keys look like with `#[entity(key_case = "lower")]`,
//! `#[entity(key_values = "verbatim")]`, `#[entity(delimiter = "|")]` and `<field:raw>`
//! placeholders; this module holds the
//! runtime side: [`KeyStyle`] on every [`Template`](super::Template), and the one function that
//! turns a part written by [`KeyPart::write_part`](super::KeyPart::write_part) (always in the
//! library's canonical form: `#` and `%` escaped) into the text a styled key holds.
//!
//! What each choice costs:
//!
//! * **Another delimiter** ([`KeyStyle::delimiter`], such as `|` for `USER|123`): templates are
//!   split at it, a value holding it is escaped as `%` and its two hex digits (`%7C`; `#` is then
//!   plain text) or, with verbatim values, refused; `begins_with` prefixes and range bounds end
//!   at it. The entities of one table share one delimiter (`#[derive(TableDef)]` checks it), so
//!   that the table's collision checks can compare keys segment by segment. String order of the
//!   keys follows the order of their parts only for fixed-width parts (integers, times, dates)
//!   or parts whose characters all sort after the delimiter: `|` (0x7C) sorts after letters and
//!   digits, so `ORDER|2026-05-010|…` comes before `ORDER|2026-05-01|…`, and a sort-key range
//!   over variable-width text parts follows the keys' order, not the parts'.
//! * **Case folding** ([`KeyCase::Lower`], [`KeyCase::Upper`]) loses the value's case, so a key
//!   field is read back from a case-folded key only when it takes the value in that case
//!   (`#[entity(folded)]`: `alice` for a stored `Alice`; integers, which folding keeps, too);
//!   other key fields are read from their attributes. Queries fold the values they are given.
//! * **Verbatim values** ([`KeyStyle::escape`] `false`) match writers that never escape; a value
//!   holding the delimiter would change the key's structure, so it is refused before any
//!   request is sent ([`KeyPartError::Delimiter`]).
//! * **Unpadded integers** (`<count:raw>`, [`Segment::Part`](super::Segment::Part) with `raw`)
//!   do not sort numerically (`10` sorts before `9`): a sort-key range condition over such a part
//!   is refused when the request is built, and the design lint reports raw parts in sort keys.

use super::{DELIMITER, KeyPartError, escape_delimited, unescape, unescape_delimited};

/// The case a key is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyCase {
    /// Values keep their case (the default).
    AsIs,
    /// The whole key is lowercased, literals and values (ElectroDB's default).
    Lower,
    /// The whole key is uppercased.
    Upper,
}

impl KeyCase {
    /// Whether `text` written in a key of this case is `stored`: `Open` is `open` in a
    /// lowercased key, `Über` is `über` (Unicode case rules, as keys are folded).
    pub(crate) fn fold_eq(self, text: &str, stored: &str) -> bool {
        match self {
            KeyCase::AsIs => text == stored,
            KeyCase::Lower if text.is_ascii() => {
                text.eq_ignore_ascii_case(stored) && !stored.bytes().any(|b| b.is_ascii_uppercase())
            }
            KeyCase::Upper if text.is_ascii() => {
                text.eq_ignore_ascii_case(stored) && !stored.bytes().any(|b| b.is_ascii_lowercase())
            }
            KeyCase::Lower => text.to_lowercase() == stored,
            KeyCase::Upper => text.to_uppercase() == stored,
        }
    }
}

/// How the parts of a key are written, besides the template's text: the entity's
/// `key_case` and `key_values` choices. [`KeyStyle::DEFAULT`] is the library's own form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyStyle {
    /// The case of the key. The derive writes the template's literal text already in this case,
    /// so only values are folded when a key is written.
    pub case: KeyCase,
    /// `true`: the delimiter and the escape character `%` inside a value are escaped (`%23`
    /// for `#`, `%7C` for `|`: `%` and the delimiter's two uppercase hex digits; `%25` for `%`),
    /// so any value can be a part. `false`: values are written as they are (`%` too), and a
    /// value holding the delimiter is refused.
    pub escape: bool,
    /// The delimiter between the segments of a key: [`DELIMITER`] (`#`) unless the entity
    /// declares another (`#[entity(delimiter = "|")]`, for keys such as `USER|123`). Always one
    /// ASCII punctuation character other than `%`, `<` and `>` (the derive checks it).
    pub delimiter: char,
}

impl KeyStyle {
    /// The library's own form: values escaped, case kept.
    pub const DEFAULT: KeyStyle = KeyStyle { case: KeyCase::AsIs, escape: true, delimiter: DELIMITER };

    /// Whether this is [`KeyStyle::DEFAULT`] (usable in constant evaluation).
    pub const fn is_default(&self) -> bool {
        matches!(self.case, KeyCase::AsIs) && self.escape && self.delimiter == DELIMITER
    }

    /// Whether a key of this style is written with another delimiter than `#`.
    pub const fn other_delimiter(&self) -> bool {
        self.delimiter != DELIMITER
    }

    /// The two uppercase hex digits of the delimiter's escape (`23` for `#`, `7C` for `|`).
    fn delimiter_code(&self) -> [u8; 2] {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        let b = self.delimiter as u32 as u8;
        [HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xF)]]
    }

    /// Appends `raw` to `out` escaped for this style's delimiter: `%` as `%25`, the delimiter
    /// as `%` and its hex code; every other character as it is.
    fn escape_into(&self, raw: &str, out: &mut String) {
        escape_delimited(raw, self.delimiter, self.delimiter_code(), out);
    }

    /// Reverses [`KeyStyle::escape_into`]: `None` for a `%` that starts neither `%25` nor the
    /// delimiter's escape.
    pub(crate) fn unescape<'k>(&self, piece: &'k str) -> Option<std::borrow::Cow<'k, str>> {
        unescape_delimited(piece, self.delimiter, self.delimiter_code())
    }

    /// Whether the case of values is lost in keys of this style.
    pub const fn folds_case(&self) -> bool {
        !matches!(self.case, KeyCase::AsIs)
    }

    /// Rewrites `out[start..]`, a part as [`KeyPart::write_part`](super::KeyPart::write_part)
    /// wrote it (canonical: `#` and `%` escaped), into this style.
    ///
    /// # Errors
    /// [`KeyPartError::Delimiter`] when values are verbatim and the value holds the delimiter.
    pub(crate) fn restyle(&self, out: &mut String, start: usize) -> Result<(), KeyPartError> {
        if self.is_default() {
            return Ok(());
        }
        let written = &out[start..];
        let text = if self.escape && !self.other_delimiter() {
            // `%23` / `%25` are digits: folding keeps every escape.
            self.fold(written.to_owned())
        } else {
            let raw = unescape(written).ok_or_else(|| KeyPartError::Unescaped { text: written.to_owned() })?;
            // Folded before escaping: the hex letters of an escape (`%7C`) keep their case.
            let raw = self.fold(raw.into_owned());
            if self.escape {
                let mut text = String::with_capacity(raw.len() + 2);
                self.escape_into(&raw, &mut text);
                text
            } else if raw.contains(self.delimiter) {
                return Err(KeyPartError::Delimiter { text: raw, delimiter: self.delimiter });
            } else {
                raw
            }
        };
        out.truncate(start);
        out.push_str(&text);
        Ok(())
    }

    /// `text` in this style's case.
    fn fold(&self, text: String) -> String {
        match self.case {
            KeyCase::AsIs => text,
            KeyCase::Lower => text.to_lowercase(),
            KeyCase::Upper => text.to_uppercase(),
        }
    }

    /// The value text of one part read from a key of this style: unescaped when the style
    /// escapes, as stored otherwise. `None` for a malformed escape.
    pub(crate) fn unstyle<'k>(&self, piece: &'k str) -> Option<std::borrow::Cow<'k, str>> {
        if self.escape { self.unescape(piece) } else { Some(std::borrow::Cow::Borrowed(piece)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn restyled(style: KeyStyle, canonical: &str) -> Result<String, KeyPartError> {
        let mut out = String::from("X#");
        out.push_str(canonical);
        style.restyle(&mut out, 2)?;
        Ok(out)
    }

    #[test]
    fn styles_rewrite_the_canonical_part() {
        let lower = KeyStyle { case: KeyCase::Lower, escape: true, delimiter: '#' };
        let verbatim = KeyStyle { case: KeyCase::AsIs, escape: false, delimiter: '#' };
        let both = KeyStyle { case: KeyCase::Lower, escape: false, delimiter: '#' };
        let upper = KeyStyle { case: KeyCase::Upper, escape: true, delimiter: '#' };
        assert_eq!(restyled(KeyStyle::DEFAULT, "Ab%23c").unwrap(), "X#Ab%23c");
        assert_eq!(restyled(lower, "Ab%23C").unwrap(), "X#ab%23c");
        assert_eq!(restyled(upper, "ab%25c").unwrap(), "X#AB%25C");
        assert_eq!(restyled(verbatim, "50%25 Off").unwrap(), "X#50% Off");
        assert_eq!(restyled(both, "Alice").unwrap(), "X#alice");
        assert_eq!(restyled(verbatim, "a%23b"), Err(KeyPartError::Delimiter { text: "a#b".into(), delimiter: '#' }));
        assert_eq!(verbatim.unstyle("50%").as_deref(), Some("50%"));
        assert_eq!(KeyStyle::DEFAULT.unstyle("a%23b").as_deref(), Some("a#b"));
        assert_eq!(KeyStyle::DEFAULT.unstyle("a%2"), None);
        assert!(KeyStyle::DEFAULT.is_default() && !lower.is_default() && !verbatim.is_default());
        assert!(lower.folds_case() && upper.folds_case() && !verbatim.folds_case());
    }

    use crate::key::support::{KeyContext, KeyMatcher, KeyWriter};
    use crate::key::{Cardinality, KeyError, KeyType, PartForm, Segment, Template};
    use aws_sdk_dynamodb::types::AttributeValue;

    /// ElectroDB 3's default: `$service#field_value`, lowercased, never escaped.
    static ELECTRO: Template = Template {
        source: "$app#user_<id>#n_<count:raw>",
        segments: &[
            Segment::Literal("$app"),
            Segment::Part { prefix: "user_", field: "id", suffix: "", raw: false },
            Segment::Part { prefix: "n_", field: "count", suffix: "", raw: true },
        ],
        key_type: KeyType::S,
        cardinality: Cardinality::High,
        style: KeyStyle { case: KeyCase::Lower, escape: false, delimiter: '#' },
    };
    static AROUND: Template = Template {
        source: "o<num>.v#<name>",
        segments: &[Segment::Part { prefix: "o", field: "num", suffix: ".v", raw: false }, Segment::Field("name")],
        key_type: KeyType::S,
        cardinality: Cardinality::High,
        style: KeyStyle::DEFAULT,
    };

    fn write(t: &'static Template, a: &str, n: u32) -> Result<AttributeValue, KeyError> {
        let mut w = KeyWriter::new(KeyContext { entity: "User", attribute: "PK", template: t, max_bytes: 2048 });
        w.part(a)?;
        w.part(&n)?;
        w.finish()
    }

    fn matches(t: &'static Template, stored: &str, a: &str, n: u32) -> bool {
        let stored = AttributeValue::S(stored.to_owned());
        let mut m = KeyMatcher::new(t, Some(&stored));
        m.part(a);
        m.part(&n);
        m.finish()
    }

    #[test]
    fn affixed_raw_and_folded_parts() {
        assert_eq!(write(&ELECTRO, "Alice", 17).unwrap(), AttributeValue::S("$app#user_alice#n_17".into()));
        assert_eq!(write(&ELECTRO, "50%", 0).unwrap(), AttributeValue::S("$app#user_50%#n_0".into()));
        assert!(matches!(
            write(&ELECTRO, "a#b", 1),
            Err(KeyError::Part { field: "id", reason: KeyPartError::Delimiter { .. }, .. })
        ));
        assert_eq!(ELECTRO.parse("$app#user_alice#n_17").unwrap(), vec!["alice", "17"]);
        assert_eq!(ELECTRO.parse("$app#user_50%#n_0").unwrap(), vec!["50%", "0"]);
        assert!(ELECTRO.parse("$app#usr_alice#n_17").is_err(), "another prefix");
        assert!(ELECTRO.parse("$app#user_#n_17").is_err(), "an empty part");
        assert!(ELECTRO.fits(&AttributeValue::S("$app#user_x#n_1".into())));
        assert!(!ELECTRO.fits(&AttributeValue::S("$app#user_x#count_1".into())));
        assert!(matches(&ELECTRO, "$app#user_alice#n_17", "ALICE", 17), "values are folded before comparing");
        assert!(!matches(&ELECTRO, "$app#user_alice#n_017", "alice", 17), "raw integers are not padded");
        assert!(!matches(&ELECTRO, "$app#user_bob#n_17", "alice", 17));
        assert_eq!(
            ELECTRO.placeholders().collect::<Vec<_>>(),
            [("id", PartForm::Composite), ("count", PartForm::Number)]
        );
        assert_eq!(ELECTRO.raw_among_first(1), None);
        assert_eq!(ELECTRO.raw_among_first(2), Some("count"));
        assert_eq!(ELECTRO.literal_prefix(), "$app#");

        let mut w = KeyWriter::new(KeyContext { entity: "O", attribute: "SK", template: &AROUND, max_bytes: 1024 });
        w.part("7#.v").unwrap();
        w.part("x").unwrap();
        assert_eq!(w.finish().unwrap(), AttributeValue::S("o7%23.v.v#x".into()));
        assert_eq!(AROUND.parse("o7%23.v.v#x").unwrap(), vec!["7#.v", "x"]);
        assert!(AROUND.parse("o.v#x").is_err(), "an empty part between the affixes");
        let stored = AttributeValue::S("o7%23.v.v#x".into());
        let mut m = KeyMatcher::new(&AROUND, Some(&stored));
        m.part("7#.v");
        m.part("x");
        assert!(m.finish());
    }

    /// `USER|<id>|<n>`: another delimiter, values escaped.
    static PIPES: Template = Template {
        source: "USER|<id>|n_<n>",
        segments: &[
            Segment::Literal("USER"),
            Segment::Field("id"),
            Segment::Part { prefix: "n_", field: "n", suffix: "", raw: false },
        ],
        key_type: KeyType::S,
        cardinality: Cardinality::High,
        style: KeyStyle { case: KeyCase::AsIs, escape: true, delimiter: '|' },
    };
    /// The same, values verbatim and lowercased (as a writer that never escapes).
    static PIPES_VERBATIM: Template = Template {
        source: "USER|<id>|n_<n>",
        segments: PIPES.segments,
        key_type: KeyType::S,
        cardinality: Cardinality::High,
        style: KeyStyle { case: KeyCase::Lower, escape: false, delimiter: '|' },
    };

    #[test]
    fn another_delimiter_is_escaped_or_refused_and_splits_keys() {
        let pipe = PIPES.style;
        assert!(!pipe.is_default() && pipe.other_delimiter() && !KeyStyle::DEFAULT.other_delimiter());
        // `|` is escaped as `%7C`, `%` as `%25`; `#` is plain text.
        assert_eq!(restyled(pipe, "a|b%23c%25").unwrap(), "X#a%7Cb#c%25");
        assert_eq!(pipe.unstyle("a%7Cb#c%25").as_deref(), Some("a|b#c%"));
        assert_eq!(pipe.unstyle("a%23b"), None, "`%23` is no escape under `|`");
        // Folding keeps the escape's hex digits uppercase.
        let lower_pipe = KeyStyle { case: KeyCase::Lower, escape: true, delimiter: '|' };
        assert_eq!(restyled(lower_pipe, "A|B").unwrap(), "X#a%7Cb");
        assert_eq!(
            restyled(PIPES_VERBATIM.style, "a|B#"),
            Err(KeyPartError::Delimiter { text: "a|b#".into(), delimiter: '|' })
        );
        assert_eq!(restyled(PIPES_VERBATIM.style, "Team%237").unwrap(), "X#team#7");

        assert_eq!(write(&PIPES, "a|b#c", 7).unwrap(), AttributeValue::S("USER|a%7Cb#c|n_0000000007".into()));
        assert_eq!(PIPES.parse("USER|a%7Cb#c|n_0000000007").unwrap(), vec!["a|b#c", "0000000007"]);
        assert!(PIPES.parse("USER#a|n_1").is_err(), "`#` does not split these keys");
        assert!(PIPES.fits(&AttributeValue::S("USER|x#y|n_1".into())));
        assert!(!PIPES.fits(&AttributeValue::S("USER#x#n_1".into())));
        assert_eq!(PIPES.literal_prefix(), "USER|");
        assert!(matches(&PIPES, "USER|a%7Cb#c|n_0000000007", "a|b#c", 7));
        assert!(!matches(&PIPES, "USER|a|b#c|n_0000000007", "a|b#c", 7));

        assert_eq!(write(&PIPES_VERBATIM, "Team#7", 1).unwrap(), AttributeValue::S("USER|team#7|n_0000000001".into()));
        assert!(matches!(
            write(&PIPES_VERBATIM, "a|b", 1),
            Err(KeyError::Part { field: "id", reason: KeyPartError::Delimiter { delimiter: '|', .. }, .. })
        ));
        assert_eq!(PIPES_VERBATIM.parse("USER|50%|n_1").unwrap(), vec!["50%", "1"]);
        static CONST: Template = Template {
            source: "A|B",
            segments: &[Segment::Literal("A"), Segment::Literal("B")],
            key_type: KeyType::S,
            cardinality: Cardinality::Low,
            style: KeyStyle { case: KeyCase::AsIs, escape: true, delimiter: '|' },
        };
        assert_eq!(CONST.constant().as_deref(), Some("A|B"));
        assert_eq!(write_const(&CONST), AttributeValue::S("A|B".into()));
    }

    fn write_const(t: &'static Template) -> AttributeValue {
        KeyWriter::new(KeyContext { entity: "C", attribute: "SK", template: t, max_bytes: 1024 }).finish().unwrap()
    }

    proptest::proptest! {
        #[test]
        fn another_delimiter_round_trips_and_never_collides(
            a in "[|#%a]{1,4}", b in "[|#%a]{1,4}", c in "[|#%a]{1,4}", d in "[|#%a]{1,4}", n: u32, m: u32,
        ) {
            let key = |x: &str, n: u32| write(&PIPES, x, n).unwrap();
            let written = key(&a, n);
            let text = written.as_s().unwrap();
            let expected = [a.clone(), format!("{n:010}")];
            proptest::prop_assert_eq!(PIPES.parse(text).unwrap(), expected);
            proptest::prop_assert!(PIPES.fits(&written));
            proptest::prop_assert_eq!(a == c && n == m, key(&a, n) == key(&c, m));
            proptest::prop_assert_eq!(a == b, key(&a, 1) == key(&b, 1));
            // The matcher agrees with the writer.
            proptest::prop_assert_eq!(matches(&PIPES, text, &d, n), d == a);
        }
    }
}
