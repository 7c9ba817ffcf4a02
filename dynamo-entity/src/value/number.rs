//! DynamoDB number text: the one parser of its notations ([`NumberText`]: a sign, digits with
//! an optional point, an optional exponent), the plain form numbers are written in
//! ([`write_plain`]), and what reads number text: integers in any notation, the canonical form,
//! exact comparison and DynamoDB's limits.

use super::ValueError;

/// Number text taken apart, `[-+]int[.frac][(e|E)[-+]exp]`: the int, fraction and exponent
/// parts are ASCII digits, `int` and `frac` not both empty, the exponent not empty when its
/// `e` is there. Nothing is allocated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NumberText<'a> {
    /// Whether the text starts with `-`.
    pub(crate) negative: bool,
    /// Whether the text starts with `+`.
    pub(crate) plus: bool,
    /// The digits before the point.
    pub(crate) int: &'a str,
    /// The digits after the point (empty without one).
    pub(crate) frac: &'a str,
    /// Whether the exponent is negative.
    exponent_negative: bool,
    /// The exponent's magnitude, saturating at `u64::MAX`.
    exponent_magnitude: u64,
}

impl<'a> NumberText<'a> {
    /// Takes `text` apart; `None` when it is not number text (no digits, another character, a
    /// second point, an empty exponent).
    pub(crate) fn parse(text: &'a str) -> Option<NumberText<'a>> {
        let (negative, plus, rest) = match text.as_bytes().first() {
            Some(b'-') => (true, false, &text[1..]),
            Some(b'+') => (false, true, &text[1..]),
            _ => (false, false, text),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() && frac.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (exponent_negative, exponent_magnitude) = match exponent {
            None => (false, 0),
            Some(e) => {
                let (neg, digits) = match e.as_bytes().first() {
                    Some(b'-') => (true, &e[1..]),
                    Some(b'+') => (false, &e[1..]),
                    _ => (false, e),
                };
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let magnitude =
                    digits.bytes().fold(0u64, |m, d| m.saturating_mul(10).saturating_add(u64::from(d - b'0')));
                (neg, magnitude)
            }
        };
        Some(NumberText { negative, plus, int, frac, exponent_negative, exponent_magnitude })
    }

    /// The exponent, `None` when it does not fit an `i64`.
    pub(crate) fn exponent(&self) -> Option<i64> {
        if self.exponent_negative {
            0i64.checked_sub_unsigned(self.exponent_magnitude)
        } else {
            i64::try_from(self.exponent_magnitude).ok()
        }
    }

    /// The exponent, its magnitude at most 2^40: far beyond any number's range, and small
    /// enough that sums with digit counts cannot overflow.
    pub(crate) fn exponent_clamped(&self) -> i64 {
        let magnitude = self.exponent_magnitude.min(1 << 40) as i64;
        if self.exponent_negative { -magnitude } else { magnitude }
    }

    /// The digits of the int and fraction parts, in order.
    pub(crate) fn digits(&self) -> impl DoubleEndedIterator<Item = u8> + '_ {
        self.int.bytes().chain(self.frac.bytes())
    }
}

/// Appends `digits × 10^scale` in plain notation (no exponent), `-` first when `negative`:
/// `digits` followed by zeros, or with a point inside, or after `0.` and zeros. `digits` are
/// the significant digits, without leading zeros.
pub(crate) fn write_plain(out: &mut String, negative: bool, digits: &str, scale: i64) {
    if negative {
        out.push('-');
    }
    if scale >= 0 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', scale as usize));
        return;
    }
    let point = digits.len() as i64 + scale; // digits before the point
    if point > 0 {
        let (int, frac) = digits.split_at(point as usize);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(digits);
    }
}

/// Parses DynamoDB number text into an integer type, accepting the plain form (`-42`) and the
/// scientific or fractional forms DynamoDB may return for integral values (`4.2E+1`, `42.0`).
/// `None` when the text is not an integer or does not fit `T`.
pub fn parse_integer<T: std::str::FromStr>(text: &str) -> Option<T> {
    if let Ok(v) = text.parse::<T>() {
        return Some(v);
    }
    normalize_integer(text)?.parse::<T>().ok()
}

/// Reads DynamoDB number text as the integer type `T` (named `ty` in errors), accepting the
/// forms other clients write for integral values (`42`, `42.0`, `4.2E1`, `+42`).
///
/// # Errors
/// [`ValueError::NotInteger`] for a number with a fractional part (`4.5`);
/// [`ValueError::Number`] for text that is not a number or an integer outside `T`'s range.
pub fn integer_from_text<T: std::str::FromStr>(text: &str, ty: &'static str) -> Result<T, ValueError> {
    if let Some(v) = parse_integer::<T>(text) {
        return Ok(v);
    }
    match decimal_parts(text) {
        // 0.digits × 10^point has a fractional part when digits reach past the point.
        Some((_, digits, point)) if !digits.is_empty() && digits.len() as i64 > point => {
            Err(ValueError::NotInteger { text: text.to_owned(), ty })
        }
        _ => Err(ValueError::Number { text: text.to_owned(), ty }),
    }
}

/// Rewrites an integral decimal in any notation to plain digits (with a leading `-`).
fn normalize_integer(text: &str) -> Option<String> {
    let number = NumberText::parse(text)?;
    let exp = number.exponent()?;
    if exp.unsigned_abs() > 200 {
        return None;
    }
    let mut digits: String = number.digits().map(char::from).collect();
    let point = number.int.len() as i64 + exp; // digits before the decimal point
    if point < 0 {
        return digits.bytes().all(|b| b == b'0').then(|| "0".to_owned());
    }
    let point = point as usize;
    if point >= digits.len() {
        digits.extend(std::iter::repeat_n('0', point - digits.len()));
    } else if !digits[point..].bytes().all(|b| b == b'0') {
        return None;
    } else {
        digits.truncate(point);
    }
    let trimmed = digits.trim_start_matches('0');
    let body = if trimmed.is_empty() { "0" } else { trimmed };
    Some(if number.negative && body != "0" { format!("-{body}") } else { body.to_owned() })
}

/// A decimal's sign, significant digits (no leading or trailing zeros) and the position of the
/// decimal point relative to them: the value is `0.digits × 10^point`. `None` for text that is
/// not a number.
fn decimal_parts(text: &str) -> Option<(bool, String, i64)> {
    let number = NumberText::parse(text)?;
    let exp = number.exponent()?;
    let all: String = number.digits().map(char::from).collect();
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0').to_owned();
    let point = number.int.len() as i64 - lead as i64 + exp;
    Some((number.negative && !digits.is_empty(), digits, point))
}

/// Compares two DynamoDB number texts exactly (any notation); text that is not a number sorts
/// first.
pub fn compare_numbers(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (Some(x), Some(y)) = (decimal_parts(a), decimal_parts(b)) else {
        return decimal_parts(a).is_some().cmp(&decimal_parts(b).is_some());
    };
    let magnitude = |(_, d, p): &(bool, String, i64), (_, e, q): &(bool, String, i64)| -> Ordering {
        match (d.is_empty(), e.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => p.cmp(q).then_with(|| d.as_str().cmp(e.as_str())),
        }
    };
    match (x.0, y.0) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => magnitude(&x, &y),
        (true, true) => magnitude(&y, &x),
    }
}

/// A number's plain canonical text, as DynamoDB stores and returns it: no exponent, no leading
/// zeros, no trailing zeros after the point, no point when integral, `0` for any zero. `None`
/// for text that is not a number, or beyond DynamoDB's range.
pub(crate) fn canonical_number(text: &str) -> Option<String> {
    let number = NumberText::parse(text.trim())?;
    let exponent = number.exponent()?;
    // value = digits * 10^scale
    let all: String = number.digits().map(char::from).collect();
    let mut scale = exponent - number.frac.len() as i64;
    let mut digits = all.trim_start_matches('0');
    if digits.is_empty() {
        return Some("0".to_owned());
    }
    while let Some(rest) = digits.strip_suffix('0') {
        digits = rest;
        scale += 1;
    }
    if scale.unsigned_abs() > 200 {
        return None; // beyond DynamoDB's range
    }
    let mut out = String::new();
    write_plain(&mut out, number.negative, digits, scale);
    Some(out)
}

/// Checks number text that serde produced (a float's `NaN`, `inf`, or a `1e300` written out in
/// full) against DynamoDB's number rules: decimal text, at most 38 significant digits, a
/// magnitude below 10^126 and, when not zero, at least 10^-130.
pub(crate) fn check_number_text(text: &str) -> Result<(), ValueError> {
    let refuse = |reason| Err(ValueError::NotRepresentable { value: text.to_owned(), reason });
    let Some(number) = NumberText::parse(text).filter(|n| !n.plus) else {
        return refuse("a DynamoDB number is finite decimal text");
    };
    let Some(exponent) = number.exponent().and_then(|e| i32::try_from(e).ok()) else {
        return refuse("a DynamoDB number is finite decimal text");
    };
    let (int, frac) = (number.int, number.frac);
    let digits = || number.digits();
    let leading = digits().take_while(|&b| b == b'0').count();
    let total = int.len() + frac.len();
    if leading == total {
        return Ok(());
    }
    let trailing = digits().rev().take_while(|&b| b == b'0').count();
    if total - leading - trailing > 38 {
        return refuse("a number has at most 38 significant digits");
    }
    // 10^(magnitude - 1) <= |value| < 10^magnitude
    let magnitude = i64::from(exponent) + int.len() as i64 - leading as i64;
    if magnitude > 126 {
        return refuse("a number's magnitude must be below 10^126");
    }
    if magnitude - 1 < -130 {
        return refuse("a non-zero number's magnitude must be at least 10^-130");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue;

    use super::*;
    use crate::value::serde_to_attribute;

    #[test]
    fn serde_number_text_follows_dynamodb_rules() {
        for ok in ["0", "-0.000", "42", "-4.2e1", "1E+125", "9.99e125", "1e-130", "0.5", &"1".repeat(38)] {
            assert_eq!(check_number_text(ok), Ok(()), "{ok}");
        }
        let cases = [
            ("NaN", "a DynamoDB number is finite decimal text"),
            ("inf", "a DynamoDB number is finite decimal text"),
            ("1e", "a DynamoDB number is finite decimal text"),
            ("1e126", "a number's magnitude must be below 10^126"),
            ("1e-131", "a non-zero number's magnitude must be at least 10^-130"),
            ("1234567890123456789012345678901234567891", "a number has at most 38 significant digits"),
        ];
        for (text, reason) in cases {
            assert_eq!(
                check_number_text(text),
                Err(ValueError::NotRepresentable { value: text.to_owned(), reason }),
                "{text}"
            );
        }
        let huge = format!("{}", 1e300_f64);
        assert_eq!(
            serde_to_attribute(&vec![1e300_f64]),
            Err(ValueError::NotRepresentable { value: huge, reason: "a number's magnitude must be below 10^126" })
        );
        assert!(matches!(serde_to_attribute(&f64::NAN), Err(ValueError::NotRepresentable { .. })));
        assert_eq!(
            serde_to_attribute(&vec![1.5_f64]),
            Ok(Some(AttributeValue::L(vec![AttributeValue::N("1.5".into())])))
        );
    }

    #[test]
    fn integers_in_other_notations() {
        assert_eq!(parse_integer::<u64>("42"), Some(42));
        assert_eq!(parse_integer::<u64>("4.2E+1"), Some(42));
        assert_eq!(parse_integer::<i64>("-4.2e1"), Some(-42));
        assert_eq!(parse_integer::<u64>("42.000"), Some(42));
        assert_eq!(parse_integer::<u64>("4.25E+1"), None);
        assert_eq!(parse_integer::<u8>("256"), None);
        assert_eq!(parse_integer::<u64>("-1"), None);
        assert_eq!(parse_integer::<i32>("0E+5"), Some(0));
        assert_eq!(parse_integer::<u64>("1E+20"), None);
        assert_eq!(parse_integer::<u128>("1E+20"), Some(100_000_000_000_000_000_000));
    }

    #[test]
    fn numbers_compare_exactly() {
        use std::cmp::Ordering::*;
        assert_eq!(compare_numbers("18446744073709551615", "18446744073709551614"), Greater);
        assert_eq!(compare_numbers("1E+2", "100"), Equal);
        assert_eq!(compare_numbers("-5", "3"), Less);
        assert_eq!(compare_numbers("-5", "-30"), Greater);
        assert_eq!(compare_numbers("0.001", "0.01"), Less);
        assert_eq!(compare_numbers("0", "-0.0"), Equal);
        assert_eq!(compare_numbers("12.5", "12.50"), Equal);
    }

    #[test]
    fn number_text_takes_every_notation_apart() {
        /// Sign, `+`, int digits, fraction digits, exponent, clamped exponent.
        type Parts<'a> = (bool, bool, &'a str, &'a str, Option<i64>, i64);
        fn parts(text: &str) -> Option<Parts<'_>> {
            NumberText::parse(text).map(|n| (n.negative, n.plus, n.int, n.frac, n.exponent(), n.exponent_clamped()))
        }
        assert_eq!(parts("42"), Some((false, false, "42", "", Some(0), 0)));
        assert_eq!(parts("-4.25E+1"), Some((true, false, "4", "25", Some(1), 1)));
        assert_eq!(parts("+.5e-3"), Some((false, true, "", "5", Some(-3), -3)));
        assert_eq!(parts("7."), Some((false, false, "7", "", Some(0), 0)));
        assert_eq!(parts("1e-9223372036854775808"), Some((false, false, "1", "", Some(i64::MIN), -(1 << 40))));
        assert_eq!(parts("1e9223372036854775808"), Some((false, false, "1", "", None, 1 << 40)));
        assert_eq!(parts("1e99999999999999999999999"), Some((false, false, "1", "", None, 1 << 40)));
        for bad in ["", "-", "+", ".", "e5", "1e", "1e+", "1.2.3", "--1", "+-1", "1e5.5", "1e5e5", " 1", "0x1", "NaN"] {
            assert!(parts(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn plain_text_places_the_point() {
        let plain = |negative, digits, scale| {
            let mut out = String::new();
            write_plain(&mut out, negative, digits, scale);
            out
        };
        assert_eq!(plain(false, "42", 0), "42");
        assert_eq!(plain(true, "42", 2), "-4200");
        assert_eq!(plain(false, "425", -1), "42.5");
        assert_eq!(plain(true, "5", -3), "-0.005");
        assert_eq!(plain(false, "125", -3), "0.125");
    }

    #[test]
    fn canonical_text_and_decimals_agree() {
        for text in [
            "0",
            "-0.000",
            "4.2E+1",
            "+42.50",
            "1e-130",
            "-9.99e125",
            "0.000123",
            "123456789012345678901234567890123456.78",
        ] {
            let decimal: crate::value::Decimal = text.parse().unwrap();
            assert_eq!(canonical_number(text), Some(decimal.to_string()), "{text}");
        }
        assert_eq!(canonical_number(" 1.50 "), Some("1.5".to_owned()));
        assert_eq!(canonical_number("1e201"), None);
        assert_eq!(canonical_number("1e9223372036854775808"), None);
    }
}
