//! [`Decimal`]: any number DynamoDB can hold, kept exactly.
//!
//! A DynamoDB number has at most 38 significant digits and, unless it is zero, a magnitude
//! from 10^-130 to below 10^126. An `f64` keeps 15 to 17 significant digits and
//! `rust_decimal::Decimal` 28 or 29, so a number another client wrote can hold more than they
//! do; such a read is refused (the table in [`value`](super) says which numbers each type
//! reads). A [`Decimal`] holds every DynamoDB number.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use super::number::{NumberText, write_plain};

/// The most significant digits a DynamoDB number has.
pub const MAX_DIGITS: u32 = 38;

/// A non-zero number is below 10^126 in magnitude...
const MAGNITUDE_BELOW: i64 = 126;
/// ...and at least 10^-130.
const MAGNITUDE_AT_LEAST: i64 = -130;

/// Any number DynamoDB can hold, exactly: up to 38 significant digits, zero or a magnitude from
/// 10^-130 ([`Decimal::MIN_POSITIVE`]) to below 10^126 ([`Decimal::MAX`]), positive or negative.
///
/// Stored as a number (`N`) in canonical text ([`Display`](fmt::Display): no exponent, no
/// leading or trailing zeros, `0` for zero); read from a number in any notation other clients
/// write (`42`, `42.0`, `4.2E1`, `0042`, `-0`). A value with more than 38 significant digits or
/// outside DynamoDB's range cannot be built, so writing a `Decimal` is never refused.
///
/// Equality, hashing and ordering are by numeric value: `1.0 == 1`, `-0 == 0`,
/// `0.1 < 0.10000000000000000000000000000000000001`. A `Decimal` keeps the value, not the
/// spelling (`1.50` reads back as `1.5`), as DynamoDB itself does.
///
/// ```
/// use dynamo_entity::value::{Decimal, DecimalError};
///
/// let exact: Decimal = "1234567890.1234567890123456789012345678".parse()?;
/// assert_eq!(exact.to_string(), "1234567890.1234567890123456789012345678");
/// assert_eq!("4.2E1".parse::<Decimal>()?, Decimal::from(42));
/// assert_eq!("1.50".parse::<Decimal>()?.to_string(), "1.5");
/// assert!("0.1".parse::<Decimal>()? < "0.10000000000000000000000000000000000001".parse()?);
/// assert_eq!(i64::try_from(Decimal::from(-7))?, -7);
/// assert!(matches!(u64::try_from("2.5".parse::<Decimal>()?), Err(DecimalError::NotInteger { .. })));
/// assert!(matches!("1".repeat(39).parse::<Decimal>(), Err(DecimalError::TooManyDigits { digits: 39, .. })));
/// # Ok::<(), DecimalError>(())
/// ```
///
/// As a field of an entity:
///
/// ```
/// use dynamo_entity::Entity;
/// use dynamo_entity::value::Decimal;
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(pk = "LEDGER#<id>", sk = "BALANCE")]
/// struct Balance {
///     id: String,
///     amount: Decimal,
/// }
///
/// let b = Balance { id: "7".into(), amount: "-12.3456789012345678901234567890123456".parse().unwrap() };
/// let item = b.to_item().unwrap();
/// assert_eq!(item["amount"].as_n().unwrap(), "-12.3456789012345678901234567890123456");
/// assert_eq!(Balance::from_item(&item).unwrap(), b);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Decimal {
    /// The significant digits, without trailing zeros (below 10^38); 0 for zero.
    coefficient: u128,
    /// The power of ten of the last significant digit; 0 for zero.
    exponent: i16,
    /// Whether the number is below zero; never for zero.
    negative: bool,
}

/// Why a [`Decimal`] could not be built, parsed or converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecimalError {
    /// The text is not a decimal number (optional sign, digits with an optional point, an
    /// optional exponent `e` or `E`).
    #[error("`{text}` is not a number")]
    NotANumber {
        /// The text that was refused.
        text: String,
    },
    /// More significant digits than DynamoDB's 38 (leading zeros and trailing zeros do not
    /// count).
    #[error("`{text}` has {digits} significant digits, and a DynamoDB number at most 38")]
    TooManyDigits {
        /// The number that was refused, as text.
        text: String,
        /// Its count of significant digits.
        digits: u64,
    },
    /// A non-zero magnitude below 10^-130, or of 10^126 or more.
    #[error("`{text}` is outside DynamoDB's range: a non-zero number's magnitude is from 1E-130 to below 1E+126")]
    OutOfRange {
        /// The number that was refused, as text.
        text: String,
    },
    /// A conversion into an integer type of a number with a fractional part.
    #[error("{value} is not an integer, as {ty} needs")]
    NotInteger {
        /// The number.
        value: Decimal,
        /// The type it was converted into.
        ty: &'static str,
    },
    /// A conversion into a type whose range (or precision) does not hold the number.
    #[error("{value} does not fit in {ty}")]
    DoesNotFit {
        /// The number.
        value: Decimal,
        /// The type it was converted into.
        ty: &'static str,
    },
}

/// The count of decimal digits of `c` (0 for 0).
fn digit_count(c: u128) -> u32 {
    if c == 0 { 0 } else { c.ilog10() + 1 }
}

impl Decimal {
    /// Zero.
    pub const ZERO: Decimal = Decimal { coefficient: 0, exponent: 0, negative: false };
    /// One.
    pub const ONE: Decimal = Decimal { coefficient: 1, exponent: 0, negative: false };
    /// The largest number DynamoDB holds: 38 nines followed by 88 zeros (9.99…9E+125).
    pub const MAX: Decimal =
        Decimal { coefficient: 99_999_999_999_999_999_999_999_999_999_999_999_999, exponent: 88, negative: false };
    /// The smallest number DynamoDB holds, `-MAX`.
    pub const MIN: Decimal =
        Decimal { coefficient: 99_999_999_999_999_999_999_999_999_999_999_999_999, exponent: 88, negative: true };
    /// The smallest positive number DynamoDB holds, 1E-130.
    pub const MIN_POSITIVE: Decimal = Decimal { coefficient: 1, exponent: -130, negative: false };

    /// The number `coefficient × 10^exponent`: `Decimal::new(15, -1)` is 1.5.
    ///
    /// # Errors
    /// [`DecimalError::TooManyDigits`] when the coefficient has more than 38 significant
    /// digits (trailing zeros do not count); [`DecimalError::OutOfRange`] when the number is
    /// not zero and its magnitude is below 10^-130 or at least 10^126.
    ///
    /// ```
    /// use dynamo_entity::value::Decimal;
    /// assert_eq!(Decimal::new(15, -1)?.to_string(), "1.5");
    /// assert_eq!(Decimal::new(-2500, 2)?.to_string(), "-250000");
    /// assert!(Decimal::new(1, 126).is_err());
    /// # Ok::<(), dynamo_entity::value::DecimalError>(())
    /// ```
    pub fn new(coefficient: i128, exponent: i32) -> Result<Decimal, DecimalError> {
        let text = || format!("{coefficient}E{exponent}");
        Decimal::from_parts(coefficient < 0, coefficient.unsigned_abs(), i64::from(exponent)).map_err(|e| match e {
            Refused::Digits(digits) => DecimalError::TooManyDigits { text: text(), digits },
            Refused::Range => DecimalError::OutOfRange { text: text() },
        })
    }

    /// `±magnitude × 10^exponent`, normalized (trailing zeros moved into the exponent).
    pub(super) fn from_parts(negative: bool, mut magnitude: u128, mut exponent: i64) -> Result<Decimal, Refused> {
        if magnitude == 0 {
            return Ok(Decimal::ZERO);
        }
        while magnitude.is_multiple_of(10) {
            magnitude /= 10;
            exponent += 1;
        }
        let digits = digit_count(magnitude);
        if digits > MAX_DIGITS {
            return Err(Refused::Digits(u64::from(digits)));
        }
        Decimal::checked(negative, magnitude, exponent).ok_or(Refused::Range)
    }

    /// The number of a non-zero coefficient without trailing zeros (at most 38 digits), or
    /// `None` outside DynamoDB's range.
    fn checked(negative: bool, coefficient: u128, exponent: i64) -> Option<Decimal> {
        let digits = i64::from(digit_count(coefficient));
        // 10^(digits - 1 + exponent) <= |value| < 10^(digits + exponent)
        if digits + exponent > MAGNITUDE_BELOW || digits - 1 + exponent < MAGNITUDE_AT_LEAST {
            return None;
        }
        Some(Decimal { coefficient, exponent: exponent as i16, negative })
    }

    /// The significant digits with the sign, without trailing zeros: the number is
    /// `coefficient() × 10^exponent()`. 0 for zero.
    ///
    /// ```
    /// use dynamo_entity::value::Decimal;
    /// let d: Decimal = "-1.2500E3".parse()?;
    /// assert_eq!((d.coefficient(), d.exponent()), (-125, 1));
    /// # Ok::<(), dynamo_entity::value::DecimalError>(())
    /// ```
    pub fn coefficient(&self) -> i128 {
        // Below 10^38, so within i128.
        let c = self.coefficient as i128;
        if self.negative { -c } else { c }
    }

    /// The power of ten of the last significant digit ([`Decimal::coefficient`]); 0 for zero.
    pub fn exponent(&self) -> i32 {
        i32::from(self.exponent)
    }

    /// The count of significant digits, 1 to 38 (0 for zero).
    pub fn digits(&self) -> u32 {
        digit_count(self.coefficient)
    }

    /// Whether the number is zero (`0`, `-0`, `0.000`, `0E+5` are all zero).
    pub fn is_zero(&self) -> bool {
        self.coefficient == 0
    }

    /// Whether the number is below zero (never for zero, which has no sign).
    pub fn is_sign_negative(&self) -> bool {
        self.negative
    }

    /// The magnitude.
    pub fn abs(&self) -> Decimal {
        Decimal { negative: false, ..*self }
    }

    /// Writes the canonical text ([`Display`](fmt::Display)) to `out`.
    pub(crate) fn write_to(&self, out: &mut String) {
        if self.coefficient == 0 {
            out.push('0');
            return;
        }
        let mut buf = [0u8; 39];
        let mut at = buf.len();
        let mut c = self.coefficient;
        while c > 0 {
            at -= 1;
            buf[at] = b'0' + (c % 10) as u8;
            c /= 10;
        }
        // ASCII digits only.
        let digits = std::str::from_utf8(&buf[at..]).unwrap_or_default();
        write_plain(out, self.negative, digits, i64::from(self.exponent));
    }

    /// Whether this number equals the binary float `v` exactly (not its shortest text: `0.1`
    /// is not exactly any float, 2^60 = `1152921504606846976` is).
    pub(crate) fn equals_float(&self, v: f64) -> bool {
        if v == 0.0 || self.is_zero() {
            return v == 0.0 && self.is_zero();
        }
        if !v.is_finite() || (v < 0.0) != self.negative {
            return false;
        }
        // |v| = m × 2^k with m odd.
        let bits = v.abs().to_bits();
        let (raw_exp, fraction) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
        let (mut m, mut k) = if raw_exp == 0 { (fraction, -1074) } else { (fraction | 1 << 52, raw_exp - 1075) };
        let tz = m.trailing_zeros();
        m >>= tz;
        k += i64::from(tz);
        // |self| = c × 10^e = c × 5^e × 2^e.
        let (c, e) = (self.coefficient, i64::from(self.exponent));
        let five = |p: i64| 5u128.checked_pow(p as u32);
        let (odd_times, twos) = if e >= 0 {
            // Overflow: the odd part c × 5^e is then far above any float's 53 bits.
            match five(e).and_then(|p| c.checked_mul(p)) {
                Some(x) => (x, e),
                None => return false,
            }
        } else {
            // c × 2^e / 5^-e is a binary fraction only when 5^-e divides c.
            match five(-e) {
                Some(p) if c.is_multiple_of(p) => (c / p, e),
                _ => return false,
            }
        };
        let tz = odd_times.trailing_zeros();
        odd_times >> tz == u128::from(m) && twos + i64::from(tz) == k
    }

    /// The magnitude `c × 10^e` as an integer, when it is one and fits `u128`.
    pub(super) fn integral_magnitude(&self, ty: &'static str) -> Result<u128, DecimalError> {
        if self.exponent < 0 {
            return Err(DecimalError::NotInteger { value: *self, ty });
        }
        10u128
            .checked_pow(self.exponent as u32)
            .and_then(|p| self.coefficient.checked_mul(p))
            .ok_or(DecimalError::DoesNotFit { value: *self, ty })
    }
}

/// Why [`Decimal::from_parts`] refused a number (the caller knows its text).
pub(super) enum Refused {
    /// The count of significant digits, over 38.
    Digits(u64),
    /// Outside DynamoDB's range.
    Range,
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        let sign = |d: &Decimal| if d.negative { -1 } else { i8::from(d.coefficient != 0) };
        match sign(self).cmp(&sign(other)) {
            Ordering::Equal if self.negative => other.cmp_magnitude(self),
            Ordering::Equal => self.cmp_magnitude(other),
            unequal => unequal,
        }
    }
}

impl Decimal {
    /// Compares magnitudes: first the position of the leading digit, then the digits aligned.
    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        let (a, b) = (digit_count(self.coefficient), digit_count(other.coefficient));
        if a == 0 || b == 0 {
            return a.cmp(&b);
        }
        let lead = |digits: u32, e: i16| i64::from(digits) + i64::from(e);
        lead(a, self.exponent).cmp(&lead(b, other.exponent)).then_with(|| {
            // Both below 10^38 once padded to 38 digits.
            let pad = |c: u128, digits: u32| c * 10u128.pow(MAX_DIGITS - digits);
            pad(self.coefficient, a).cmp(&pad(other.coefficient, b))
        })
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::ops::Neg for Decimal {
    type Output = Decimal;
    fn neg(self) -> Decimal {
        Decimal { negative: !self.negative && self.coefficient != 0, ..self }
    }
}

/// The canonical text: no exponent, no leading zeros, no trailing zeros after the point, no
/// point when integral, `0` for zero (`1.5`, `-250000`, `0.001`). It parses back to the same
/// number. Width, fill and alignment apply (`{:>8}`).
impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(48);
        self.write_to(&mut s);
        f.pad(&s)
    }
}

/// `Decimal(1.5)`: the canonical text.
impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decimal({self})")
    }
}

/// Reads number text in any notation: an optional sign (`-`, `+`), digits with an optional
/// point (`42`, `42.`, `.5`, `0042.50`), then an optional exponent (`4.2E1`, `42e-3`, `1E+5`).
///
/// # Errors
/// [`DecimalError::NotANumber`], [`DecimalError::TooManyDigits`] (more than 38 significant
/// digits), [`DecimalError::OutOfRange`].
impl FromStr for Decimal {
    type Err = DecimalError;

    fn from_str(text: &str) -> Result<Decimal, DecimalError> {
        let number = NumberText::parse(text).ok_or_else(|| DecimalError::NotANumber { text: text.to_owned() })?;
        let mut coefficient: u128 = 0;
        let mut digits: u64 = 0; // significant digits, up to the last non-zero one
        let mut zeros: u64 = 0; // zeros after the last non-zero digit
        for b in number.digits() {
            if b == b'0' {
                zeros += u64::from(digits > 0);
            } else {
                let total = digits + zeros + 1;
                if total <= u64::from(MAX_DIGITS) {
                    coefficient = coefficient * 10u128.pow(zeros as u32 + 1) + u128::from(b - b'0');
                }
                (digits, zeros) = (total, 0);
            }
        }
        let fraction = number.frac.len() as u64; // digits after the point
        let exponent = number.exponent_clamped();
        if digits > u64::from(MAX_DIGITS) {
            return Err(DecimalError::TooManyDigits { text: text.to_owned(), digits });
        }
        if digits == 0 {
            return Ok(Decimal::ZERO);
        }
        Decimal::checked(number.negative, coefficient, exponent + zeros as i64 - fraction as i64)
            .ok_or_else(|| DecimalError::OutOfRange { text: text.to_owned() })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::value::Attribute;
    use std::collections::{BTreeSet, HashSet};

    /// The decimal of `text`, which must parse.
    pub(in crate::value) fn d(text: &str) -> Decimal {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// A number of 38 significant digits.
    pub(in crate::value) const DIGITS38: &str = "1234567890.1234567890123456789012345678";

    #[test]
    fn reads_every_notation() {
        let cases = [
            ("42", "42"),
            ("42.0", "42"),
            ("4.2E1", "42"),
            ("4.2e+1", "42"),
            ("420E-1", "42"),
            ("0042", "42"),
            ("+42", "42"),
            ("42.", "42"),
            (".5", "0.5"),
            ("-0", "0"),
            ("-0.000E+7", "0"),
            ("0E-500", "0"),
            ("1.50", "1.5"),
            ("-0.001", "-0.001"),
            ("1E-130", &format!("0.{}1", "0".repeat(129))),
            ("1.2E-130", &format!("0.{}12", "0".repeat(129))),
            ("1E+125", &format!("1{}", "0".repeat(125))),
            (DIGITS38, DIGITS38),
            ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
            ("1234567890123456789012345678901234567800000", "1234567890123456789012345678901234567800000"),
            ("0.000012345678901234567890123456789012345678", "0.000012345678901234567890123456789012345678"),
        ];
        for (text, canonical) in cases {
            assert_eq!(d(text).to_string(), canonical, "{text}");
            assert_eq!(d(canonical), d(text), "{text}");
        }
        assert_eq!(d("9.9999999999999999999999999999999999999E+125"), Decimal::MAX);
        assert_eq!(Decimal::MAX.to_string(), format!("{}{}", "9".repeat(38), "0".repeat(88)));
        assert_eq!(d("-9.9999999999999999999999999999999999999E+125"), Decimal::MIN);
        assert_eq!(d("1e-130"), Decimal::MIN_POSITIVE);
    }

    #[test]
    fn refuses_what_dynamodb_refuses() {
        let not_a_number = |t: &str| DecimalError::NotANumber { text: t.to_owned() };
        for text in
            ["", "-", "+", ".", "E5", "1E", "1E+", "1e5.5", "1.2.3", "NaN", "inf", " 1", "1 ", "0x10", "--1", "1_000"]
        {
            assert_eq!(text.parse::<Decimal>(), Err(not_a_number(text)), "{text:?}");
        }
        let many = "1234567890.12345678901234567890123456789";
        assert_eq!(many.parse::<Decimal>(), Err(DecimalError::TooManyDigits { text: many.into(), digits: 39 }));
        // Trailing and leading zeros are not significant; an inner zero is.
        assert_eq!(d(&format!("0.000{}000", "7".repeat(38))).digits(), 38);
        let inner = format!("1{}1", "0".repeat(37));
        assert_eq!(inner.parse::<Decimal>(), Err(DecimalError::TooManyDigits { text: inner.clone(), digits: 39 }));
        for text in
            ["1E+126", "10E+125", "-1E+126", "1E-131", "0.99E-130", "99999999999999999999999999999999999999E+89"]
        {
            assert_eq!(text.parse::<Decimal>(), Err(DecimalError::OutOfRange { text: text.into() }), "{text}");
        }
        assert_eq!(
            "1E99999999999999999999999".parse::<Decimal>(),
            Err(DecimalError::OutOfRange { text: "1E99999999999999999999999".into() })
        );
        assert_eq!(
            DecimalError::TooManyDigits { text: many.into(), digits: 39 }.to_string(),
            "`1234567890.12345678901234567890123456789` has 39 significant digits, and a DynamoDB number at most 38"
        );
    }

    #[test]
    fn new_and_parts() {
        assert_eq!(Decimal::new(15, -1), Ok(d("1.5")));
        assert_eq!(Decimal::new(-1500, -3), Ok(d("-1.5")));
        assert_eq!(Decimal::new(0, 9999), Ok(Decimal::ZERO));
        assert_eq!(Decimal::new(1, -130), Ok(Decimal::MIN_POSITIVE));
        assert_eq!(Decimal::new(1, -131), Err(DecimalError::OutOfRange { text: "1E-131".into() }));
        assert_eq!(Decimal::new(1, 126), Err(DecimalError::OutOfRange { text: "1E126".into() }));
        assert_eq!(
            Decimal::new(i128::MAX, 0),
            Err(DecimalError::TooManyDigits { text: format!("{}E0", i128::MAX), digits: 39 })
        );
        let x = d("-1.2500E3");
        assert_eq!((x.coefficient(), x.exponent(), x.digits(), x.is_sign_negative()), (-125, 1, 3, true));
        assert_eq!((Decimal::ZERO.coefficient(), Decimal::ZERO.exponent(), Decimal::ZERO.digits()), (0, 0, 0));
        assert!(d("-0").is_zero() && !d("-0").is_sign_negative());
        assert_eq!((-d("1.5"), -Decimal::ZERO, d("-2").abs()), (d("-1.5"), Decimal::ZERO, d("2")));
        assert_eq!(Decimal::default(), Decimal::ZERO);
    }

    #[test]
    fn equal_by_value() {
        use std::hash::{BuildHasher, RandomState};
        let state = RandomState::new();
        for (a, b) in [("1.0", "1"), ("-0", "0"), ("4.2E1", "42"), ("0.10", ".1"), ("100", "1E2")] {
            assert_eq!(d(a), d(b), "{a} {b}");
            assert_eq!(state.hash_one(d(a)), state.hash_one(d(b)), "{a} {b}");
        }
        assert_ne!(d("0.1"), d("0.10000000000000000000000000000000000001"));
        let set: HashSet<Decimal> = ["1", "1.0", "1E0", "2"].into_iter().map(d).collect();
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn ordered_by_value() {
        let sorted = [
            "-9.9999999999999999999999999999999999999E+125",
            "-1E+20",
            "-99",
            "-1.5",
            "-1E-130",
            "0",
            "1E-130",
            "1.2E-130",
            "0.1",
            "0.10000000000000000000000000000000000001",
            "0.2",
            "1",
            "1.0000000000000000000000000000000000001",
            "9",
            "10",
            "12345678901234567890123456789012345678",
            "1E+38",
            "9.9999999999999999999999999999999999999E+125",
        ];
        for w in sorted.windows(2) {
            assert_eq!(d(w[0]).cmp(&d(w[1])), Ordering::Less, "{} < {}", w[0], w[1]);
            assert_eq!(d(w[1]).cmp(&d(w[0])), Ordering::Greater, "{} > {}", w[1], w[0]);
        }
        assert_eq!(d("-0").cmp(&d("0")), Ordering::Equal);
        let set: BTreeSet<Decimal> = sorted.iter().rev().map(|t| d(t)).collect();
        assert_eq!(set.into_iter().collect::<Vec<_>>(), sorted.iter().map(|t| d(t)).collect::<Vec<_>>());
    }

    #[test]
    fn equals_floats_exactly() {
        assert!(d("0.5").equals_float(0.5));
        assert!(d("-0.375").equals_float(-0.375));
        assert!(d("1152921504606846976").equals_float(2f64.powi(60)));
        assert!(!d("1152921504606847000").equals_float(2f64.powi(60)));
        assert!(d("0").equals_float(-0.0));
        assert!(!d("0.1").equals_float(0.1));
        assert!(!d("-0.5").equals_float(0.5));
        assert!(!d("0.5").equals_float(0.0));
        assert!(!d("9007199254740993").equals_float(9007199254740992.0));
        // 2^-10 = 0.0009765625 exactly.
        assert!(d("0.0009765625").equals_float(2f64.powi(-10)));
        assert!(d("1E+22").equals_float(1e22));
        assert!(!d("1E+23").equals_float(1e23), "1e23 is not a float");
    }

    /// A decimal as its sign, digits and exponent, compared by an independent rule: both
    /// written as integers scaled to a common exponent, compared by length then text.
    fn reference_cmp(a: (bool, u128, i32), b: (bool, u128, i32)) -> Ordering {
        let scaled = |(neg, c, e): (bool, u128, i32), low: i32| -> (bool, String) {
            if c == 0 {
                return (false, "0".to_owned());
            }
            (neg, format!("{c}{}", "0".repeat((e - low) as usize)))
        };
        let low = a.2.min(b.2);
        let ((na, ta), (nb, tb)) = (scaled(a, low), scaled(b, low));
        let magnitude = ta.len().cmp(&tb.len()).then_with(|| ta.cmp(&tb));
        let zero = |t: &str| t == "0";
        match (na, nb) {
            (false, false) => magnitude,
            (true, true) => magnitude.reverse(),
            (true, false) => {
                if zero(&ta) && zero(&tb) {
                    Ordering::Equal
                } else {
                    Ordering::Less
                }
            }
            (false, true) => {
                if zero(&ta) && zero(&tb) {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
        }
    }

    fn parts() -> impl proptest::strategy::Strategy<Value = (bool, u128, i32)> {
        use proptest::prelude::*;
        (any::<bool>(), 0u128..10u128.pow(38), -167i32..=88, 0u32..=38).prop_map(|(neg, c, e, digits)| {
            // Coefficients of every length, not only of 38 digits.
            let c = c % 10u128.pow(digits).max(1);
            (neg, c, e)
        })
    }

    proptest::proptest! {
        /// The canonical text parses back to the same number; so do the scientific and padded
        /// forms other clients may write.
        #[test]
        fn text_round_trip((neg, c, e) in parts()) {
            let Ok(v) = Decimal::new(if neg { -(c as i128) } else { c as i128 }, e) else {
                return Ok(());
            };
            let text = v.to_string();
            proptest::prop_assert_eq!(text.parse::<Decimal>(), Ok(v));
            proptest::prop_assert_eq!(Decimal::from_attribute(v.to_attribute().unwrap().as_ref()), Ok(v));
            let scientific = format!("{}{}E{}", if neg { "-" } else { "" }, c, e);
            proptest::prop_assert_eq!(scientific.parse::<Decimal>(), Ok(v));
            let padded = format!("00{text}").replacen("00-", "-00", 1);
            proptest::prop_assert_eq!(padded.parse::<Decimal>(), Ok(v));
            if !text.contains('.') {
                proptest::prop_assert_eq!(format!("{text}.000").parse::<Decimal>(), Ok(v));
            }
        }

        /// Ordering agrees with comparing the two numbers written out as integers of a common
        /// scale.
        #[test]
        fn ordering_agrees_with_big_values(a in parts(), b in parts()) {
            let (Ok(x), Ok(y)) = (Decimal::new(if a.0 { -(a.1 as i128) } else { a.1 as i128 }, a.2),
                                  Decimal::new(if b.0 { -(b.1 as i128) } else { b.1 as i128 }, b.2)) else {
                return Ok(());
            };
            let want = reference_cmp(a, b);
            proptest::prop_assert_eq!(x.cmp(&y), want);
            proptest::prop_assert_eq!(x == y, want == Ordering::Equal);
            proptest::prop_assert_eq!(crate::value::compare_numbers(&x.to_string(), &y.to_string()), want);
        }
    }
}
