//! Time values: [`Timestamp`], a UTC instant with a fixed-width text form whose string order
//! equals time order, which reads RFC 3339 text as other clients write it; [`Date`], a calendar
//! day (`YYYY-MM-DD`); and [`EpochSeconds`] / [`EpochMillis`], an instant stored as a number of
//! seconds or milliseconds since the Unix epoch (DynamoDB's time to live takes epoch seconds).
//!
//! With the cargo features `chrono`, `time` and `jiff`, each converts from and to the types of
//! that crate (`From` where every value fits, `TryFrom` otherwise).

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
/// Read from an attribute, any RFC 3339 text is accepted and normalized to its instant
/// ([`Timestamp::parse_rfc3339`]: `2026-05-01T12:34:56Z`, `…56.123456+02:00`), as other
/// clients write it; a key part accepts only the canonical form, which keeps one key per
/// value.
///
/// ```
/// use dynamo_entity::Timestamp;
/// let t = Timestamp::from_millis(1_700_000_000_123).unwrap();
/// assert_eq!(t.to_string(), "2023-11-14T22:13:20.123Z");
/// assert_eq!("2023-11-14T22:13:20.123Z".parse::<Timestamp>().unwrap(), t);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// The text is not an RFC 3339 date-time ([`Timestamp::parse_rfc3339`]).
    #[error("`{text}` is not an RFC 3339 timestamp (YYYY-MM-DDTHH:MM:SS, 0 to 9 fractional digits, then Z or +HH:MM)")]
    Rfc3339 {
        /// The text that was rejected.
        text: String,
    },
    /// The text is not a date of the form `YYYY-MM-DD` (years 0000 to 9999), or the year,
    /// month and day are not a day of the calendar.
    #[error("`{text}` is not a date of the form YYYY-MM-DD (years 0000-9999)")]
    Date {
        /// The text (or `year-month-day`) that was rejected.
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
        let syntax = || TimestampError::Syntax { text: text.to_owned() };
        let b: &[u8; TIMESTAMP_LEN] = text.as_bytes().try_into().map_err(|_| syntax())?;
        // Every byte checked first, then the fields read from their known places: a decode
        // reads a timestamp per field, so this is hot (no loop, no bounds checks).
        let dg = |i: usize| b[i].is_ascii_digit();
        let well_formed = (b[4], b[7], b[10], b[13], b[16], b[19], b[23]) == (b'-', b'-', b'T', b':', b':', b'.', b'Z')
            && dg(0)
            && dg(1)
            && dg(2)
            && dg(3)
            && dg(5)
            && dg(6)
            && dg(8)
            && dg(9)
            && dg(11)
            && dg(12)
            && dg(14)
            && dg(15)
            && dg(17)
            && dg(18)
            && dg(20)
            && dg(21)
            && dg(22);
        if !well_formed {
            return Err(syntax());
        }
        let digit = |i: usize| i64::from(b[i] - b'0');
        let two = |i: usize| digit(i) * 10 + digit(i + 1);
        let (y, m, d) = (two(0) * 100 + two(2), two(5), two(8));
        let (hh, mm, ss, ms) = (two(11), two(14), two(17), two(20) * 10 + digit(22));
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) || hh > 23 || mm > 59 || ss > 59 {
            return Err(syntax());
        }
        let days = days_from_civil(y, m, d);
        Ok(Timestamp(days * 86_400_000 + hh * 3_600_000 + mm * 60_000 + ss * 1000 + ms))
    }
}

impl Timestamp {
    /// Parses an RFC 3339 date-time as other clients write it: `YYYY-MM-DD`, `T` (or `t` or a
    /// space), `HH:MM:SS`, an optional fraction of 1 to 9 digits, and the offset `Z` (or `z`)
    /// or `+HH:MM` / `-HH:MM`. The result is the instant the text names (an offset is
    /// subtracted: `2026-05-01T14:34:56+02:00` is `2026-05-01T12:34:56.000Z`), truncated to
    /// milliseconds. Python's `isoformat()`, JavaScript's `toISOString()`, Go's `RFC3339Nano`
    /// and this type's own form are all accepted. [`Timestamp::parse`] accepts only the
    /// canonical form.
    ///
    /// ```
    /// use dynamo_entity::Timestamp;
    /// let t = Timestamp::parse_rfc3339("2026-05-01T14:34:56.1234567+02:00").unwrap();
    /// assert_eq!(t.to_string(), "2026-05-01T12:34:56.123Z");
    /// ```
    ///
    /// # Errors
    /// [`TimestampError::Rfc3339`] for other text (a leap second `:60`, more than 9 fractional
    /// digits, a missing offset, an impossible date); [`TimestampError::OutOfRange`] when the
    /// instant lies outside the years 0000 to 9999 (`0000-01-01T00:30:00+01:00`).
    pub fn parse_rfc3339(text: &str) -> Result<Timestamp, TimestampError> {
        let err = || TimestampError::Rfc3339 { text: text.to_owned() };
        let b = text.as_bytes();
        let digits = |r: std::ops::Range<usize>| -> Result<i64, TimestampError> {
            let part = b.get(r).ok_or_else(err)?;
            let mut v = 0i64;
            for &c in part {
                if !c.is_ascii_digit() {
                    return Err(err());
                }
                v = v * 10 + i64::from(c - b'0');
            }
            Ok(v)
        };
        let at = |i: usize, allowed: &[u8]| b.get(i).is_some_and(|c| allowed.contains(c));
        if !(at(4, b"-") && at(7, b"-") && at(10, b"Tt ") && at(13, b":") && at(16, b":")) {
            return Err(err());
        }
        let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
        let (hh, mm, ss) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) || hh > 23 || mm > 59 || ss > 59 {
            return Err(err());
        }
        let mut i = 19;
        let mut millis = 0;
        if at(i, b".") {
            let start = i + 1;
            let end = start + b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
            if end == start || end - start > 9 {
                return Err(err());
            }
            // The first three digits, padded: the milliseconds (later digits are truncated).
            for k in 0..3 {
                millis = millis * 10 + b.get(start + k).filter(|_| start + k < end).map_or(0, |c| i64::from(c - b'0'));
            }
            i = end;
        }
        let offset_minutes = match b.get(i) {
            Some(b'Z' | b'z') if b.len() == i + 1 => 0,
            Some(sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
                let (oh, om) = (digits(i + 1..i + 3)?, digits(i + 4..i + 6)?);
                if oh > 23 || om > 59 {
                    return Err(err());
                }
                if *sign == b'-' { -(oh * 60 + om) } else { oh * 60 + om }
            }
            _ => return Err(err()),
        };
        let local = days_from_civil(y, m, d) * 86_400_000 + hh * 3_600_000 + mm * 60_000 + ss * 1000 + millis;
        Timestamp::from_millis(local - offset_minutes * 60_000)
    }

    /// The calendar day (UTC) of this instant.
    pub const fn date(self) -> Date {
        Date(self.0.div_euclid(86_400_000) as i32)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(TIMESTAMP_LEN);
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

/// `Timestamp(2026-05-01T12:34:56.000Z)`: the text form, not the milliseconds held inside.
impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({self})")
    }
}

/// Accepts what reads of an attribute accept: any RFC 3339 date-time, normalized to its
/// instant ([`Timestamp::parse_rfc3339`]: `"2026-01-01T00:00:00Z".parse()` and
/// `"2026-01-01T02:00:00.5+02:00".parse()` both work). [`Timestamp::parse`] is the strict
/// reader of the canonical form alone, as key parts need.
impl std::str::FromStr for Timestamp {
    type Err = TimestampError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Timestamp::parse_rfc3339(s)
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

/// A calendar day of the proleptic Gregorian calendar, in the years 0000 to 9999, stored (as
/// an attribute and inside keys) as the fixed-width text `YYYY-MM-DD` (10 bytes), whose string
/// order is the order of the days: a key part such as `ORDER#<day>#<id>` sorts by day.
///
/// ```
/// use dynamo_entity::Date;
/// let d = Date::from_ymd(2026, 5, 28).unwrap();
/// assert_eq!(d.to_string(), "2026-05-28");
/// assert_eq!(Date::parse("2026-05-28"), Ok(d));
/// assert_eq!((d.year(), d.month(), d.day()), (2026, 5, 28));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(i32);

/// The length in bytes of a date's text form.
pub const DATE_LEN: usize = 10;

impl Date {
    /// 0000-01-01.
    pub const MIN: Date = Date((MIN_MILLIS / 86_400_000) as i32);
    /// 9999-12-31.
    pub const MAX: Date = Date((MAX_MILLIS / 86_400_000) as i32);
    /// 1970-01-01.
    pub const EPOCH: Date = Date(0);

    /// The day `year`-`month`-`day`.
    ///
    /// # Errors
    /// [`TimestampError::Date`] for a year outside 0000 to 9999, or a month and day that are
    /// not a day of that year (`2026-02-29`).
    pub fn from_ymd(year: i32, month: u32, day: u32) -> Result<Date, TimestampError> {
        let (y, m, d) = (i64::from(year), i64::from(month), i64::from(day));
        if !(0..=9999).contains(&y) || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
            return Err(TimestampError::Date { text: format!("{year}-{month}-{day}") });
        }
        Ok(Date(days_from_civil(y, m, d) as i32))
    }

    /// The day `days` days after 1970-01-01 (negative: before it).
    ///
    /// # Errors
    /// [`TimestampError::Date`] outside the years 0000 to 9999.
    pub fn from_days_since_epoch(days: i32) -> Result<Date, TimestampError> {
        if !(Date::MIN.0..=Date::MAX.0).contains(&days) {
            return Err(TimestampError::Date { text: format!("{days} days after 1970-01-01") });
        }
        Ok(Date(days))
    }

    /// Days since 1970-01-01 (negative: before it).
    pub const fn days_since_epoch(self) -> i32 {
        self.0
    }

    /// The year, 0 to 9999.
    pub fn year(self) -> i32 {
        civil_from_days(i64::from(self.0)).0 as i32
    }

    /// The month, 1 to 12.
    pub fn month(self) -> u32 {
        civil_from_days(i64::from(self.0)).1 as u32
    }

    /// The day of the month, 1 to 31.
    pub fn day(self) -> u32 {
        civil_from_days(i64::from(self.0)).2 as u32
    }

    /// The instant this day begins, 00:00:00.000 UTC.
    pub const fn midnight(self) -> Timestamp {
        Timestamp(self.0 as i64 * 86_400_000)
    }

    /// Appends the 10-byte text form `YYYY-MM-DD` to `out`.
    pub fn write_to(self, out: &mut String) {
        let (y, m, d) = civil_from_days(i64::from(self.0));
        let mut buf = [0u8; DATE_LEN];
        put_digits(&mut buf[0..4], y as u64);
        buf[4] = b'-';
        put_digits(&mut buf[5..7], m as u64);
        buf[7] = b'-';
        put_digits(&mut buf[8..10], d as u64);
        // Every byte written above is ASCII.
        out.push_str(std::str::from_utf8(&buf).unwrap_or_default());
    }

    /// Parses the 10-byte text form `YYYY-MM-DD`, and nothing else (one text per day, as keys
    /// need).
    ///
    /// # Errors
    /// [`TimestampError::Date`] for any other text, including impossible dates such as
    /// `2026-02-30`.
    pub fn parse(text: &str) -> Result<Date, TimestampError> {
        let err = || TimestampError::Date { text: text.to_owned() };
        let b = text.as_bytes();
        if b.len() != DATE_LEN || b[4] != b'-' || b[7] != b'-' {
            return Err(err());
        }
        let mut fields = [0u32; 3];
        for (slot, range) in fields.iter_mut().zip([0..4, 5..7, 8..10]) {
            for &c in &b[range] {
                if !c.is_ascii_digit() {
                    return Err(err());
                }
                *slot = *slot * 10 + u32::from(c - b'0');
            }
        }
        Date::from_ymd(fields[0] as i32, fields[1], fields[2]).map_err(|_| err())
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(DATE_LEN);
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

/// `Date(2026-05-28)`: the text form, not the day number held inside.
impl fmt::Debug for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Date({self})")
    }
}

/// [`Date::parse`]: the form `YYYY-MM-DD` alone, which is also all that reads of an attribute
/// accept.
impl std::str::FromStr for Date {
    type Err = TimestampError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Date::parse(s)
    }
}

/// A [`Timestamp`] stored as a number (`N`) of whole seconds since the Unix epoch: the format
/// of DynamoDB's time to live, and of many other clients' `createdAt`. The type of the field
/// handle of an `#[entity(ttl)]` field; any field may have it.
///
/// Storing drops the milliseconds (rounding down, [`Timestamp::as_secs`]); reading gives the
/// whole second, from any integral number text (`1700000000`, `1.7E+9`).
///
/// ```
/// use dynamo_entity::value::time::EpochSeconds;
/// use dynamo_entity::{Attribute, Timestamp};
/// use aws_sdk_dynamodb::types::AttributeValue;
/// let t = Timestamp::from_millis(1_700_000_000_999).unwrap();
/// assert_eq!(EpochSeconds(t).to_attribute().unwrap(), Some(AttributeValue::N("1700000000".into())));
/// let back = EpochSeconds::from_attribute(Some(&AttributeValue::N("1700000000".into()))).unwrap();
/// assert_eq!(back.0, Timestamp::from_secs(1_700_000_000).unwrap());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EpochSeconds(pub Timestamp);

/// A [`Timestamp`] stored as a number (`N`) of milliseconds since the Unix epoch, as
/// JavaScript's `Date.now()` gives it.
///
/// ```
/// use dynamo_entity::value::time::EpochMillis;
/// use dynamo_entity::{Attribute, Timestamp};
/// use aws_sdk_dynamodb::types::AttributeValue;
/// let t = Timestamp::from_millis(1_700_000_000_999).unwrap();
/// assert_eq!(EpochMillis(t).to_attribute().unwrap(), Some(AttributeValue::N("1700000000999".into())));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EpochMillis(pub Timestamp);

impl From<Timestamp> for EpochSeconds {
    fn from(t: Timestamp) -> EpochSeconds {
        EpochSeconds(t)
    }
}

impl From<EpochSeconds> for Timestamp {
    fn from(t: EpochSeconds) -> Timestamp {
        t.0
    }
}

impl From<Timestamp> for EpochMillis {
    fn from(t: Timestamp) -> EpochMillis {
        EpochMillis(t)
    }
}

impl From<EpochMillis> for Timestamp {
    fn from(t: EpochMillis) -> Timestamp {
        t.0
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
        // Anything but a digit at each digit's place, and the error keeps the text.
        let good = "2026-05-01T12:34:56.789Z";
        for at in [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22] {
            for c in ["x", "/", ":", " "] {
                let bad = format!("{}{c}{}", &good[..at], &good[at + 1..]);
                assert_eq!(Timestamp::parse(&bad), Err(TimestampError::Syntax { text: bad.clone() }));
            }
        }
        assert_eq!(
            Timestamp::parse("2026-05-01T12:34:56.78éZ"),
            Err(TimestampError::Syntax { text: "2026-05-01T12:34:56.78éZ".into() })
        );
    }

    #[test]
    fn the_text_form_reads_back_as_written() {
        // 200,003 instants spread over the whole range, leap days and month ends included.
        let step = (MAX_MILLIS - Timestamp::MIN.as_millis()) / 200_003;
        for k in 0..=200_003 {
            let t = Timestamp::from_millis(Timestamp::MIN.as_millis() + k * step).unwrap();
            assert_eq!(Timestamp::parse(&t.to_string()), Ok(t));
        }
        assert_eq!(Timestamp::parse("2026-05-01T12:34:56.789Z").unwrap().as_millis(), 1_777_638_896_789);
    }

    #[test]
    fn rfc3339_forms_other_clients_write() {
        let t = |text: &str| Timestamp::parse_rfc3339(text).map(|t| t.to_string());
        let want = Ok("2026-05-01T12:34:56.000Z".to_owned());
        // Python isoformat() without a fraction, with +00:00; Go; JavaScript toISOString().
        for text in [
            "2026-05-01T12:34:56Z",
            "2026-05-01T12:34:56+00:00",
            "2026-05-01T12:34:56-00:00",
            "2026-05-01t12:34:56z",
            "2026-05-01 12:34:56Z",
            "2026-05-01T14:34:56+02:00",
            "2026-05-01T07:04:56-05:30",
            "2026-05-01T12:34:56.0Z",
            "2026-05-01T12:34:56.000000000Z",
            "2026-05-01T12:34:56.000Z",
        ] {
            assert_eq!(t(text), want, "{text}");
        }
        assert_eq!(t("2026-05-01T12:34:56.1Z"), Ok("2026-05-01T12:34:56.100Z".into()));
        assert_eq!(t("2026-05-01T12:34:56.12Z"), Ok("2026-05-01T12:34:56.120Z".into()));
        assert_eq!(t("2026-05-01T12:34:56.123456+00:00"), Ok("2026-05-01T12:34:56.123Z".into()));
        assert_eq!(t("2026-05-01T12:34:56.999999999Z"), Ok("2026-05-01T12:34:56.999Z".into()));
        // An offset that crosses midnight and a year.
        assert_eq!(t("2026-01-01T01:00:00+02:00"), Ok("2025-12-31T23:00:00.000Z".into()));
        assert_eq!(t("2025-12-31T23:30:00-01:00"), Ok("2026-01-01T00:30:00.000Z".into()));
        assert_eq!(t("2024-02-29T00:00:00Z"), Ok("2024-02-29T00:00:00.000Z".into()));
        assert_eq!(
            Timestamp::parse_rfc3339("0000-01-01T00:30:00+01:00"),
            Err(TimestampError::OutOfRange { millis: MIN_MILLIS - 30 * 60_000 })
        );
        assert!(matches!(
            Timestamp::parse_rfc3339("9999-12-31T23:59:59-00:01"),
            Err(TimestampError::OutOfRange { .. })
        ));
    }

    #[test]
    fn debug_prints_the_text_form() {
        let t = Timestamp::from_millis(1_777_638_896_000).unwrap();
        assert_eq!(format!("{t:?}"), "Timestamp(2026-05-01T12:34:56.000Z)");
        assert_eq!(format!("{:?}", Some(Timestamp::MIN)), "Some(Timestamp(0000-01-01T00:00:00.000Z))");
        let d = Date::from_days_since_epoch(20_601).unwrap();
        assert_eq!(format!("{d:?}"), "Date(2026-05-28)");
        assert_eq!(format!("{:?}", [Date::MIN, Date::MAX]), "[Date(0000-01-01), Date(9999-12-31)]");
    }

    #[test]
    fn from_str_accepts_what_reads_accept() {
        let parsed = |text: &str| text.parse::<Timestamp>().map(Timestamp::as_millis);
        assert_eq!(parsed("2026-01-01T00:00:00Z"), Ok(1_767_225_600_000));
        assert_eq!(parsed("2026-01-01T00:00:00.000Z"), Ok(1_767_225_600_000));
        assert_eq!(parsed("2026-01-01T02:00:00.5+02:00"), Ok(1_767_225_600_500));
        assert_eq!(parsed("2025-12-31T19:00:00.123456789-05:00"), Ok(1_767_225_600_123));
        assert_eq!(parsed("2026-01-01"), Err(TimestampError::Rfc3339 { text: "2026-01-01".into() }));
        // What an attribute read accepts, `FromStr` accepts, with the same value.
        for text in ["2026-01-01T00:00:00Z", "2026-05-01T14:34:56.1234+02:00", "2026-05-01 12:34:56z"] {
            let read = <Timestamp as crate::Attribute>::from_attribute(Some(
                &aws_sdk_dynamodb::types::AttributeValue::S(text.to_owned()),
            ));
            assert_eq!(read.ok(), text.parse::<Timestamp>().ok(), "{text}");
        }
        // `Date` reads only `YYYY-MM-DD`, from text and from attributes alike.
        assert_eq!("2026-05-28".parse::<Date>().map(Date::days_since_epoch), Ok(20_601));
        assert_eq!(
            "2026-05-28T00:00:00Z".parse::<Date>(),
            Err(TimestampError::Date { text: "2026-05-28T00:00:00Z".into() })
        );
    }

    #[test]
    fn rfc3339_refuses_what_it_is_not() {
        for bad in [
            "2026-05-01T12:34:56",             // no offset
            "2026-05-01T12:34:56.Z",           // a point without digits
            "2026-05-01T12:34:56.1234567890Z", // 10 fractional digits
            "2026-05-01T12:34:60Z",            // a leap second
            "2026-02-29T12:34:56Z",            // not a leap year
            "2026-05-01T24:00:00Z",
            "2026-05-01T12:34:56+0200",
            "2026-05-01T12:34:56+24:00",
            "2026-05-01T12:34:56+02:60",
            "2026-05-01T12:34:56Z ",
            "2026-05-01",
            "2026-5-01T12:34:56Z",
            "+026-05-01T12:34:56Z",
            "",
            "yesterday",
        ] {
            assert_eq!(Timestamp::parse_rfc3339(bad), Err(TimestampError::Rfc3339 { text: bad.to_owned() }), "{bad}");
        }
        assert_eq!(
            TimestampError::Rfc3339 { text: "x".into() }.to_string(),
            "`x` is not an RFC 3339 timestamp (YYYY-MM-DDTHH:MM:SS, 0 to 9 fractional digits, then Z or +HH:MM)"
        );
    }

    #[test]
    fn dates() {
        assert_eq!(Date::MIN.to_string(), "0000-01-01");
        assert_eq!(Date::MAX.to_string(), "9999-12-31");
        assert_eq!(Date::EPOCH.to_string(), "1970-01-01");
        assert_eq!(Date::parse("2026-05-28").unwrap().days_since_epoch(), 20_601);
        assert_eq!(Date::parse("1969-12-31").unwrap().days_since_epoch(), -1);
        assert_eq!(Date::MIN.midnight(), Timestamp::MIN);
        assert_eq!(Timestamp::MAX.date(), Date::MAX);
        assert_eq!(Timestamp::from_millis(-1).unwrap().date().to_string(), "1969-12-31");
        assert_eq!(Date::from_days_since_epoch(Date::MAX.days_since_epoch() + 1).map(|d| d.to_string()).ok(), None);
        for bad in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-05-32", "2026-5-28", "20260528", "2026-05-28Z", ""]
        {
            assert_eq!(Date::parse(bad), Err(TimestampError::Date { text: bad.to_owned() }), "{bad}");
        }
        assert_eq!(Date::from_ymd(10_000, 1, 1), Err(TimestampError::Date { text: "10000-1-1".into() }));
        assert_eq!(Date::from_ymd(-1, 1, 1), Err(TimestampError::Date { text: "-1-1-1".into() }));
    }

    /// One RFC 3339 spelling of `millis` with `digits` fractional digits (0 to 9; the first
    /// three are the milliseconds, the rest `extra`), at an offset of `offset` minutes.
    fn spelled(millis: i64, digits: usize, extra: u64, offset: i64) -> String {
        let local = Timestamp(millis + offset * 60_000).to_string(); // YYYY-MM-DDTHH:MM:SS.mmmZ
        let fraction = format!("{}{:06}", &local[20..23], extra);
        let zone = match offset {
            0 => "Z".to_owned(),
            o => format!("{}{:02}:{:02}", if o < 0 { '-' } else { '+' }, o.abs() / 60, o.abs() % 60),
        };
        let dot = if digits == 0 { String::new() } else { format!(".{}", &fraction[..digits]) };
        format!("{}{dot}{zone}", &local[..19])
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

        /// Every spelling (0 to 9 fractional digits, any offset) reads as its instant, truncated
        /// to the millisecond, and writes the canonical form.
        #[test]
        fn rfc3339_normalizes_to_the_instant(
            millis in (MIN_MILLIS + 86_400_000)..=(MAX_MILLIS - 86_400_000),
            digits in 0usize..=9,
            extra in 0u64..1_000_000,
            offset in -(23 * 60 + 59)..=(23 * 60 + 59i64),
        ) {
            let text = spelled(millis, digits, extra, offset);
            let kept = if digits >= 3 { millis } else {
                let unit = 10i64.pow(3 - digits as u32);
                let local = millis + offset * 60_000;
                local - local.rem_euclid(unit) - offset * 60_000
            };
            let t = Timestamp::parse_rfc3339(&text);
            proptest::prop_assert_eq!(t, Ok(Timestamp(kept)), "{}", text);
            proptest::prop_assert_eq!(Timestamp::parse(&Timestamp(kept).to_string()), Ok(Timestamp(kept)));
        }

        /// Dates round-trip, and their text order is their order.
        #[test]
        fn date_text_round_trips_and_orders(a in Date::MIN.0..=Date::MAX.0, b in Date::MIN.0..=Date::MAX.0) {
            let (da, db) = (Date(a), Date(b));
            let (sa, sb) = (da.to_string(), db.to_string());
            proptest::prop_assert_eq!(sa.len(), DATE_LEN);
            proptest::prop_assert_eq!(Date::parse(&sa), Ok(da));
            proptest::prop_assert_eq!(Date::from_ymd(da.year(), da.month(), da.day()), Ok(da));
            proptest::prop_assert_eq!(sa.cmp(&sb), a.cmp(&b));
            proptest::prop_assert_eq!(da.midnight().date(), da);
        }
    }
}
