//! Conversions between the time values of [`time`](super::time) and those of the `chrono`,
//! `time` and `jiff` crates, each behind the cargo feature of that name. A conversion into
//! [`Timestamp`] truncates to the millisecond (towards the past) and fails with
//! [`TimestampError::OutOfRange`] outside the years 0000 to 9999; a conversion into [`Date`]
//! fails with [`TimestampError::Date`] outside them. Conversions out of this crate's types
//! succeed, except a [`Timestamp`] of the last 26 hours of 9999 into `jiff::Timestamp`.

#[allow(unused_imports)]
use super::time::{Date, Timestamp, TimestampError};

/// Milliseconds (rounded towards the past) of a count of nanoseconds since the epoch.
#[allow(dead_code)]
fn millis_of_nanos(nanos: i128) -> Result<Timestamp, TimestampError> {
    let millis = nanos.div_euclid(1_000_000);
    let clamped = i64::try_from(millis).unwrap_or(if millis < 0 { i64::MIN } else { i64::MAX });
    Timestamp::from_millis(clamped)
}

#[cfg(feature = "chrono")]
mod chrono_conversions {
    use super::*;

    #[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
    impl From<Timestamp> for chrono::DateTime<chrono::Utc> {
        fn from(t: Timestamp) -> Self {
            // Every instant of the years 0000 to 9999 is within chrono's range.
            chrono::DateTime::from_timestamp_millis(t.as_millis()).unwrap_or_default()
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
    impl<Tz: chrono::TimeZone> TryFrom<chrono::DateTime<Tz>> for Timestamp {
        type Error = TimestampError;
        fn try_from(t: chrono::DateTime<Tz>) -> Result<Timestamp, TimestampError> {
            Timestamp::from_millis(t.timestamp_millis())
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
    impl From<Date> for chrono::NaiveDate {
        fn from(d: Date) -> Self {
            chrono::NaiveDate::from_ymd_opt(d.year(), d.month(), d.day()).unwrap_or_default()
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
    impl TryFrom<chrono::NaiveDate> for Date {
        type Error = TimestampError;
        fn try_from(d: chrono::NaiveDate) -> Result<Date, TimestampError> {
            use chrono::Datelike;
            Date::from_ymd(d.year(), d.month(), d.day())
        }
    }
}

#[cfg(feature = "time")]
mod time_conversions {
    use super::*;

    #[cfg_attr(docsrs, doc(cfg(feature = "time")))]
    impl From<Timestamp> for time::OffsetDateTime {
        fn from(t: Timestamp) -> Self {
            // Every instant of the years 0000 to 9999 is within time's range.
            time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(t.as_millis()) * 1_000_000)
                .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "time")))]
    impl TryFrom<time::OffsetDateTime> for Timestamp {
        type Error = TimestampError;
        fn try_from(t: time::OffsetDateTime) -> Result<Timestamp, TimestampError> {
            millis_of_nanos(t.unix_timestamp_nanos())
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "time")))]
    impl From<Date> for time::Date {
        fn from(d: Date) -> Self {
            let month = time::Month::try_from(d.month() as u8).unwrap_or(time::Month::January);
            time::Date::from_calendar_date(d.year(), month, d.day() as u8).unwrap_or(time::Date::MIN)
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "time")))]
    impl TryFrom<time::Date> for Date {
        type Error = TimestampError;
        fn try_from(d: time::Date) -> Result<Date, TimestampError> {
            Date::from_ymd(d.year(), u32::from(u8::from(d.month())), u32::from(d.day()))
        }
    }
}

#[cfg(feature = "jiff")]
mod jiff_conversions {
    use super::*;

    /// Fails for the last 26 hours of 9999 (jiff's timestamps end at 9999-12-30T22:00:00.999999999Z).
    #[cfg_attr(docsrs, doc(cfg(feature = "jiff")))]
    impl TryFrom<Timestamp> for jiff::Timestamp {
        type Error = TimestampError;
        fn try_from(t: Timestamp) -> Result<jiff::Timestamp, TimestampError> {
            jiff::Timestamp::from_millisecond(t.as_millis())
                .map_err(|_| TimestampError::OutOfRange { millis: t.as_millis() })
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "jiff")))]
    impl TryFrom<jiff::Timestamp> for Timestamp {
        type Error = TimestampError;
        fn try_from(t: jiff::Timestamp) -> Result<Timestamp, TimestampError> {
            millis_of_nanos(t.as_nanosecond())
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "jiff")))]
    impl From<Date> for jiff::civil::Date {
        fn from(d: Date) -> Self {
            jiff::civil::Date::new(d.year() as i16, d.month() as i8, d.day() as i8).unwrap_or(jiff::civil::Date::ZERO)
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "jiff")))]
    impl TryFrom<jiff::civil::Date> for Date {
        type Error = TimestampError;
        fn try_from(d: jiff::civil::Date) -> Result<Date, TimestampError> {
            Date::from_ymd(i32::from(d.year()), d.month() as u32, d.day() as u32)
        }
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use super::*;

    #[cfg(feature = "chrono")]
    #[test]
    fn chrono_round_trips() {
        let t = Timestamp::parse("2026-05-28T12:34:56.789Z").unwrap();
        let c: chrono::DateTime<chrono::Utc> = t.into();
        assert_eq!(c.to_rfc3339(), "2026-05-28T12:34:56.789+00:00");
        assert_eq!(Timestamp::try_from(c), Ok(t));
        let offset = chrono::DateTime::parse_from_rfc3339("2026-05-28T14:34:56.789+02:00").unwrap();
        assert_eq!(Timestamp::try_from(offset), Ok(t));
        let d = Date::parse("2026-05-28").unwrap();
        let n: chrono::NaiveDate = d.into();
        assert_eq!(n.to_string(), "2026-05-28");
        assert_eq!(Date::try_from(n), Ok(d));
        assert!(Date::try_from(chrono::NaiveDate::from_ymd_opt(10_000, 1, 1).unwrap()).is_err());
        let far = chrono::NaiveDate::from_ymd_opt(10_000, 1, 1).unwrap().and_hms_opt(0, 0, 0).unwrap().and_utc();
        assert!(matches!(Timestamp::try_from(far), Err(TimestampError::OutOfRange { .. })));
        assert_eq!(Timestamp::try_from(chrono::DateTime::<chrono::Utc>::from(Timestamp::MIN)), Ok(Timestamp::MIN));
        assert_eq!(Timestamp::try_from(chrono::DateTime::<chrono::Utc>::from(Timestamp::MAX)), Ok(Timestamp::MAX));
    }

    #[cfg(feature = "time")]
    #[test]
    fn time_round_trips() {
        let t = Timestamp::parse("1969-12-31T23:59:59.999Z").unwrap();
        let o: time::OffsetDateTime = t.into();
        assert_eq!(o.unix_timestamp_nanos(), -1_000_000);
        assert_eq!(Timestamp::try_from(o), Ok(t));
        // Sub-millisecond precision is truncated towards the past.
        let o = time::OffsetDateTime::from_unix_timestamp_nanos(-1).unwrap();
        assert_eq!(Timestamp::try_from(o), Ok(t));
        let d = Date::from_ymd(2024, 2, 29).unwrap();
        let td: time::Date = d.into();
        assert_eq!((td.year(), u8::from(td.month()), td.day()), (2024, 2, 29));
        assert_eq!(Date::try_from(td), Ok(d));
        assert_eq!(Date::try_from(time::Date::from(Date::MIN)), Ok(Date::MIN));
        assert_eq!(Date::try_from(time::Date::from(Date::MAX)), Ok(Date::MAX));
    }

    #[cfg(feature = "jiff")]
    #[test]
    fn jiff_round_trips() {
        let t = Timestamp::parse("2026-05-28T12:34:56.789Z").unwrap();
        let j = jiff::Timestamp::try_from(t).unwrap();
        assert_eq!(j.to_string(), "2026-05-28T12:34:56.789Z");
        assert_eq!(Timestamp::try_from(j), Ok(t));
        let d = Date::parse("2026-05-28").unwrap();
        let jd: jiff::civil::Date = d.into();
        assert_eq!(jd.to_string(), "2026-05-28");
        assert_eq!(Date::try_from(jd), Ok(d));
        assert_eq!(Timestamp::try_from(jiff::Timestamp::try_from(Timestamp::MIN).unwrap()), Ok(Timestamp::MIN));
        assert_eq!(
            jiff::Timestamp::try_from(Timestamp::MAX),
            Err(TimestampError::OutOfRange { millis: Timestamp::MAX.as_millis() })
        );
        let last = Timestamp::try_from(jiff::Timestamp::MAX).unwrap();
        assert_eq!(last.to_string(), "9999-12-30T22:00:00.999Z");
        assert!(matches!(Timestamp::try_from(jiff::Timestamp::MIN), Err(TimestampError::OutOfRange { .. })));
    }
}
