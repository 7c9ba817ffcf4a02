//! [`Timestamp`]: a UTC instant with a fixed-width text form whose string order equals time order.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A UTC instant with millisecond precision.
///
/// Stored in DynamoDB (as an attribute and inside keys) as the fixed-width text
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 bytes), so that comparing two stored values as strings
/// (which is what DynamoDB does for sort keys of type S) gives the same answer as comparing the
/// instants. The representable range is therefore the years 0000 to 9999; [`Timestamp::from_millis`]
/// rejects anything outside it.
///
/// ```
/// use dynamo_entity::Timestamp;
/// let t = Timestamp::from_millis(1_700_000_000_123).unwrap();
/// assert_eq!(t.to_string(), "2023-11-14T22:13:20.123Z");
/// assert_eq!("2023-11-14T22:13:20.123Z".parse::<Timestamp>().unwrap(), t);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

/// Milliseconds since the Unix epoch of 0000-01-01T00:00:00.000Z.
pub(crate) const MIN_MILLIS: i64 = -62_167_219_200_000;
/// Milliseconds since the Unix epoch of 9999-12-31T23:59:59.999Z.
pub(crate) const MAX_MILLIS: i64 = 253_402_300_799_999;

/// The length in bytes of a timestamp's text form.
pub const TIMESTAMP_LEN: usize = 24;

/// Why a [`Timestamp`] could not be built or parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimestampError {
    /// The instant lies outside the years 0000 to 9999, which the fixed-width form cannot hold.
    #[error("timestamp {millis} ms since the epoch is outside the years 0000-9999")]
    OutOfRange {
        /// Milliseconds since the Unix epoch.
        millis: i64,
    },
    /// The text is not of the form `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    #[error("`{text}` is not a timestamp of the form YYYY-MM-DDTHH:MM:SS.mmmZ")]
    Syntax {
        /// The text that was rejected.
        text: String,
    },
}

impl Timestamp {
    /// The earliest representable instant, 0000-01-01T00:00:00.000Z.
    pub const MIN: Timestamp = Timestamp(MIN_MILLIS);
    /// The latest representable instant, 9999-12-31T23:59:59.999Z.
    pub const MAX: Timestamp = Timestamp(MAX_MILLIS);
    /// The Unix epoch, 1970-01-01T00:00:00.000Z.
    pub const EPOCH: Timestamp = Timestamp(0);

    /// The instant `millis` milliseconds after the Unix epoch (negative: before it).
    ///
    /// # Errors
    /// [`TimestampError::OutOfRange`] outside the years 0000 to 9999.
    pub const fn from_millis(millis: i64) -> Result<Timestamp, TimestampError> {
        if millis < MIN_MILLIS || millis > MAX_MILLIS {
            Err(TimestampError::OutOfRange { millis })
        } else {
            Ok(Timestamp(millis))
        }
    }

    /// The instant `secs` seconds after the Unix epoch.
    ///
    /// # Errors
    /// [`TimestampError::OutOfRange`] outside the years 0000 to 9999.
    pub const fn from_secs(secs: i64) -> Result<Timestamp, TimestampError> {
        match secs.checked_mul(1000) {
            Some(ms) => Timestamp::from_millis(ms),
            None => Err(TimestampError::OutOfRange { millis: if secs < 0 { i64::MIN } else { i64::MAX } }),
        }
    }

    /// The current time, truncated to milliseconds.
    pub fn now() -> Timestamp {
        Timestamp::from(SystemTime::now())
    }

    /// Milliseconds since the Unix epoch.
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// Whole seconds since the Unix epoch (rounded towards negative infinity), the form DynamoDB's
    /// TTL attribute expects.
    pub const fn as_secs(self) -> i64 {
        self.0.div_euclid(1000)
    }

    /// This instant moved by `millis` milliseconds, saturating at [`Timestamp::MIN`] / [`Timestamp::MAX`].
    pub const fn add_millis(self, millis: i64) -> Timestamp {
        let v = self.0.saturating_add(millis);
        Timestamp(if v < MIN_MILLIS {
            MIN_MILLIS
        } else if v > MAX_MILLIS {
            MAX_MILLIS
        } else {
            v
        })
    }

    /// Appends the 24-byte text form to `out`.
    pub fn write_to(self, out: &mut String) {
        let days = self.0.div_euclid(86_400_000);
        let ms_of_day = self.0.rem_euclid(86_400_000);
        let (y, m, d) = civil_from_days(days);
        let mut buf = [0u8; TIMESTAMP_LEN];
        put_digits(&mut buf[0..4], y as u64);
        buf[4] = b'-';
        put_digits(&mut buf[5..7], m as u64);
        buf[7] = b'-';
        put_digits(&mut buf[8..10], d as u64);
        buf[10] = b'T';
        put_digits(&mut buf[11..13], (ms_of_day / 3_600_000) as u64);
        buf[13] = b':';
        put_digits(&mut buf[14..16], (ms_of_day / 60_000 % 60) as u64);
        buf[16] = b':';
        put_digits(&mut buf[17..19], (ms_of_day / 1000 % 60) as u64);
        buf[19] = b'.';
        put_digits(&mut buf[20..23], (ms_of_day % 1000) as u64);
        buf[23] = b'Z';
        // Every byte written above is ASCII.
        out.push_str(std::str::from_utf8(&buf).unwrap_or_default());
    }

    /// Parses the 24-byte text form `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    ///
    /// # Errors
    /// [`TimestampError::Syntax`] for any other text, including impossible dates such as
    /// `2023-02-30`.
    pub fn parse(text: &str) -> Result<Timestamp, TimestampError> {
        let err = || TimestampError::Syntax { text: text.to_owned() };
        let b = text.as_bytes();
        if b.len() != TIMESTAMP_LEN
            || b[4] != b'-'
            || b[7] != b'-'
            || b[10] != b'T'
            || b[13] != b':'
            || b[16] != b':'
            || b[19] != b'.'
            || b[23] != b'Z'
        {
            return Err(err());
        }
        let num = |r: std::ops::Range<usize>| -> Result<i64, TimestampError> {
            let mut v = 0i64;
            for &c in &b[r] {
                if !c.is_ascii_digit() {
                    return Err(err());
                }
                v = v * 10 + i64::from(c - b'0');
            }
            Ok(v)
        };
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (hh, mm, ss, ms) = (num(11..13)?, num(14..16)?, num(17..19)?, num(20..23)?);
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) || hh > 23 || mm > 59 || ss > 59 {
            return Err(err());
        }
        let days = days_from_civil(y, m, d);
        Ok(Timestamp(days * 86_400_000 + hh * 3_600_000 + mm * 60_000 + ss * 1000 + ms))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(TIMESTAMP_LEN);
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

impl std::str::FromStr for Timestamp {
    type Err = TimestampError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Timestamp::parse(s)
    }
}

impl From<SystemTime> for Timestamp {
    /// Truncates to milliseconds and clamps to the years 0000 to 9999.
    fn from(t: SystemTime) -> Timestamp {
        let ms = match t.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
            Err(e) => i64::try_from(e.duration().as_millis()).map(|v| -v).unwrap_or(i64::MIN),
        };
        Timestamp(ms.clamp(MIN_MILLIS, MAX_MILLIS))
    }
}

impl From<Timestamp> for SystemTime {
    fn from(t: Timestamp) -> SystemTime {
        if t.0 >= 0 {
            UNIX_EPOCH + Duration::from_millis(t.0 as u64)
        } else {
            UNIX_EPOCH - Duration::from_millis(t.0.unsigned_abs())
        }
    }
}

fn put_digits(out: &mut [u8], mut v: u64) {
    for slot in out.iter_mut().rev() {
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Proleptic Gregorian calendar conversions (days relative to 1970-01-01), after the well-known
// era-based algorithm: a 400-year era has 146,097 days.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_format_and_parse() {
        assert_eq!(Timestamp::MIN.to_string(), "0000-01-01T00:00:00.000Z");
        assert_eq!(Timestamp::MAX.to_string(), "9999-12-31T23:59:59.999Z");
        assert_eq!(Timestamp::EPOCH.to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(Timestamp::parse("0000-01-01T00:00:00.000Z"), Ok(Timestamp::MIN));
        assert_eq!(Timestamp::parse("9999-12-31T23:59:59.999Z"), Ok(Timestamp::MAX));
        assert_eq!(Timestamp::from_millis(MAX_MILLIS + 1), Err(TimestampError::OutOfRange { millis: MAX_MILLIS + 1 }));
        assert_eq!(Timestamp::from_millis(-1).unwrap().to_string(), "1969-12-31T23:59:59.999Z");
        assert_eq!(Timestamp::parse("2024-02-29T12:00:00.000Z").unwrap().as_millis(), 1_709_208_000_000);
    }

    #[test]
    fn rejects_bad_text() {
        for bad in [
            "2023-02-29T00:00:00.000Z",
            "2023-13-01T00:00:00.000Z",
            "2023-01-01 00:00:00.000Z",
            "2023-01-01T24:00:00.000Z",
            "2023-01-01T00:00:00.000",
            "+023-01-01T00:00:00.000Z",
        ] {
            assert!(matches!(Timestamp::parse(bad), Err(TimestampError::Syntax { .. })), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn text_round_trips_and_orders(a in MIN_MILLIS..=MAX_MILLIS, b in MIN_MILLIS..=MAX_MILLIS) {
            let (ta, tb) = (Timestamp(a), Timestamp(b));
            let (sa, sb) = (ta.to_string(), tb.to_string());
            proptest::prop_assert_eq!(sa.len(), TIMESTAMP_LEN);
            proptest::prop_assert_eq!(Timestamp::parse(&sa), Ok(ta));
            proptest::prop_assert_eq!(sa.cmp(&sb), a.cmp(&b));
        }
    }
}
