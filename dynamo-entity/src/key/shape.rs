//! [`PartShape`]: what text a key part can write inside a composite key, which the table
//! declaration's collision checks compare with literal segments and with other parts.

/// The texts a [`KeyPart`](crate::KeyPart) can write as one segment of a string key
/// ([`PartForm::Composite`](crate::key::PartForm::Composite)), as far as the collision checks of
/// `#[derive(TableDef)]` need to know: `V#LATEST` and `V#<version>` (a `u64`, always 20 digits)
/// never give the same key; `V#<name>` (a `String`) could.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartShape {
    /// Any non-empty text: strings, their newtypes, and hand-written parts (the default).
    Any,
    /// Exactly `width` ASCII digits, or, when `signed`, also `-` followed by `width` digits: the
    /// zero-padded, order-preserving form of an integer type.
    Digits {
        /// The number of digits (20 for `u64`, 19 for `i64`).
        width: u8,
        /// Whether a `-` may precede the digits (signed integer types).
        signed: bool,
    },
    /// One of these texts: `true` / `false` for `bool`, the variant names of a field-less enum
    /// of `#[derive(KeyPart)]`.
    OneOf(&'static [&'static str]),
    /// A [`Timestamp`](crate::Timestamp): `YYYY-MM-DDTHH:MM:SS.mmmZ`, 24 characters.
    UtcTime,
    /// A [`Date`](crate::value::time::Date): `YYYY-MM-DD`, 10 characters.
    UtcDate,
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` with `9` for a digit.
const TIMESTAMP_PATTERN: &[u8] = b"9999-99-99T99:99:99.999Z";
/// `YYYY-MM-DD` with `9` for a digit.
const DATE_PATTERN: &[u8] = b"9999-99-99";

impl PartShape {
    /// Whether the part can write `text` (one segment of a key, as stored: escaped).
    ///
    /// ```
    /// use dynamo_entity::key::PartShape;
    /// let version = PartShape::Digits { width: 20, signed: false };
    /// assert!(!version.can_write("LATEST"));
    /// assert!(version.can_write("00000000000000000007"));
    /// assert!(PartShape::Any.can_write("LATEST"));
    /// ```
    pub const fn can_write(self, text: &str) -> bool {
        let b = text.as_bytes();
        match self {
            PartShape::Any => !b.is_empty(),
            PartShape::Digits { width, signed } => {
                let digits = match b {
                    [b'-', rest @ ..] if signed => rest,
                    _ => b,
                };
                digits.len() == width as usize && all_digits(digits)
            }
            PartShape::OneOf(texts) => {
                let mut i = 0;
                while i < texts.len() {
                    if super::str_eq(texts[i], text) {
                        return true;
                    }
                    i += 1;
                }
                false
            }
            PartShape::UtcTime => matches_pattern(b, TIMESTAMP_PATTERN, false),
            PartShape::UtcDate => matches_pattern(b, DATE_PATTERN, false),
        }
    }

    /// [`can_write`](Self::can_write) for a key whose case is folded
    /// ([`KeyStyle::case`](crate::key::KeyStyle)): letters compared without their ASCII case,
    /// so that `2026-05-01t12:00:00.000z` is a folded `Timestamp` and `open` a folded `Open`.
    ///
    /// ```
    /// use dynamo_entity::key::PartShape;
    /// assert!(PartShape::UtcTime.can_write_folded("2026-05-01t12:00:00.000z"));
    /// assert!(!PartShape::UtcTime.can_write_folded("meta"));
    /// assert!(PartShape::OneOf(&["Open", "Close"]).can_write_folded("open"));
    /// ```
    pub const fn can_write_folded(self, text: &str) -> bool {
        let b = text.as_bytes();
        match self {
            PartShape::OneOf(texts) => {
                let mut i = 0;
                while i < texts.len() {
                    if texts[i].eq_ignore_ascii_case(text) {
                        return true;
                    }
                    i += 1;
                }
                false
            }
            PartShape::UtcTime => matches_pattern(b, TIMESTAMP_PATTERN, true),
            PartShape::UtcDate => matches_pattern(b, DATE_PATTERN, true),
            PartShape::Any | PartShape::Digits { .. } => self.can_write(text),
        }
    }

    /// Whether this part and `other` can write the same text.
    ///
    /// ```
    /// use dynamo_entity::key::PartShape;
    /// let (u64_, u32_) = (PartShape::Digits { width: 20, signed: false }, PartShape::Digits { width: 10, signed: false });
    /// assert!(!u64_.overlaps(u32_));
    /// assert!(u64_.overlaps(PartShape::Any));
    /// assert!(!PartShape::UtcTime.overlaps(PartShape::OneOf(&["LATEST"])));
    /// ```
    pub const fn overlaps(self, other: PartShape) -> bool {
        self.meets(other, false)
    }

    /// [`overlaps`](Self::overlaps), variant names compared without their ASCII case when
    /// `folded`.
    const fn meets(self, other: PartShape, folded: bool) -> bool {
        match (self, other) {
            (PartShape::Any, _) | (_, PartShape::Any) => true,
            (PartShape::OneOf(texts), shape) | (shape, PartShape::OneOf(texts)) => {
                let mut i = 0;
                while i < texts.len() {
                    let writes = if folded { shape.can_write_folded(texts[i]) } else { shape.can_write(texts[i]) };
                    if writes {
                        return true;
                    }
                    i += 1;
                }
                false
            }
            // Two digit forms meet only at the same width (a `-` needs both signed).
            (PartShape::Digits { width: a, .. }, PartShape::Digits { width: b, .. }) => a == b,
            (PartShape::UtcTime, PartShape::UtcTime) | (PartShape::UtcDate, PartShape::UtcDate) => true,
            _ => false,
        }
    }

    /// Whether every text this part writes has one fixed form of ASCII digits and fixed
    /// characters (`9` in [`fixed_form`](Self::fixed_form) standing for a digit): unsigned
    /// integers, [`PartShape::UtcTime`], [`PartShape::UtcDate`]. Such a part's values, as
    /// stored, all lie between the form with every digit `0` and the form with every digit
    /// `9`, and every one starts with a digit: a query can read them with `BETWEEN` instead
    /// of `begins_with`, which keeps out sibling sort keys such as `V#LATEST` beside
    /// `V#<version>`.
    ///
    /// ```
    /// use dynamo_entity::key::PartShape;
    /// assert!(PartShape::Digits { width: 20, signed: false }.is_fixed_form());
    /// assert!(!PartShape::Digits { width: 19, signed: true }.is_fixed_form());
    /// assert!(PartShape::UtcDate.is_fixed_form() && !PartShape::Any.is_fixed_form());
    /// ```
    pub const fn is_fixed_form(self) -> bool {
        matches!(self, PartShape::Digits { signed: false, .. } | PartShape::UtcTime | PartShape::UtcDate)
    }

    /// The fixed form of a [`is_fixed_form`](Self::is_fixed_form) part, `9` for each digit
    /// (`99999999999999999999` for a `u64`, `9999-99-99` for a date); `None` for the others.
    pub fn fixed_form(self) -> Option<String> {
        match self {
            PartShape::Digits { width, signed: false } => Some("9".repeat(usize::from(width))),
            PartShape::UtcTime => Some(String::from_utf8_lossy(TIMESTAMP_PATTERN).into_owned()),
            PartShape::UtcDate => Some(String::from_utf8_lossy(DATE_PATTERN).into_owned()),
            _ => None,
        }
    }

    /// Whether some text this part writes may start with an ASCII digit (or `-`, which sorts
    /// just below the digits).
    pub const fn may_start_with_digit(self) -> bool {
        match self {
            PartShape::OneOf(texts) => {
                let mut i = 0;
                while i < texts.len() {
                    let b = texts[i].as_bytes();
                    if !b.is_empty() && (b[0].is_ascii_digit() || b[0] == b'-') {
                        return true;
                    }
                    i += 1;
                }
                false
            }
            _ => true,
        }
    }

    /// [`overlaps`](Self::overlaps) in a key whose case is folded: texts compared without
    /// their letters' ASCII case ([`can_write_folded`](Self::can_write_folded)), so a `bool`
    /// (`true`) meets `TRUE` in an uppercased key.
    ///
    /// ```
    /// use dynamo_entity::key::PartShape;
    /// assert!(PartShape::OneOf(&["true", "false"]).overlaps_folded(PartShape::OneOf(&["TRUE"])));
    /// assert!(!PartShape::UtcTime.overlaps_folded(PartShape::OneOf(&["META"])));
    /// ```
    pub const fn overlaps_folded(self, other: PartShape) -> bool {
        self.meets(other, true)
    }

    /// The narrower of two overlapping shapes (either, when neither is [`PartShape::Any`]):
    /// what a placeholder equal to both can still write, as far as the checks follow it.
    pub const fn narrower(self, other: PartShape) -> PartShape {
        match self {
            PartShape::Any => other,
            _ => self,
        }
    }
}

const fn all_digits(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `b` has `pattern`'s form (`9` standing for an ASCII digit), its other characters
/// compared without their ASCII case when `folded`.
const fn matches_pattern(b: &[u8], pattern: &[u8], folded: bool) -> bool {
    if b.len() != pattern.len() {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        let ok = if pattern[i] == b'9' {
            b[i].is_ascii_digit()
        } else if folded {
            b[i].eq_ignore_ascii_case(&pattern[i])
        } else {
            b[i] == pattern[i]
        };
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_know_their_texts() {
        let i64_ = PartShape::Digits { width: 19, signed: true };
        assert!(i64_.can_write("-0000000000000000001") && i64_.can_write("0000000000000000001"));
        assert!(!i64_.can_write("000000000000000001") && !i64_.can_write("+0000000000000000001"));
        assert!(!PartShape::Digits { width: 3, signed: false }.can_write("-001"));
        assert!(PartShape::UtcTime.can_write("2024-05-01T10:00:00.000Z"));
        assert!(!PartShape::UtcTime.can_write("2024-05-01") && PartShape::UtcDate.can_write("2024-05-01"));
        let status = PartShape::OneOf(&["draft", "live"]);
        assert!(status.can_write("live") && !status.can_write("LATEST"));
        assert!(!PartShape::Any.can_write(""));
        assert!(PartShape::OneOf(&["2024-05-01"]).overlaps(PartShape::UtcDate));
        assert!(!PartShape::UtcTime.overlaps(PartShape::UtcDate));
        assert!(!status.overlaps(PartShape::OneOf(&["DRAFT"])));
        assert_eq!(PartShape::Any.narrower(status), status);
    }
}
