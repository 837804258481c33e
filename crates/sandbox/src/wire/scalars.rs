//! The schema's scalars: `Date` (`YYYY-MM-DD`) and `DateTime` (RFC 3339, UTC).

use async_graphql::{InputValueError, InputValueResult, Scalar, ScalarType, Value};

/// `Date`: a calendar date, `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date(pub time::Date);

const DATE_FORMAT: &[time::format_description::FormatItem<'static>] =
    time::macros::format_description!("[year]-[month]-[day]");

impl Date {
    pub fn parse(text: &str) -> Option<Self> {
        time::Date::parse(text, DATE_FORMAT).ok().map(Self)
    }

    pub fn to_iso(&self) -> String {
        let (year, month, day) = self.0.to_calendar_date();
        if (0..=9999).contains(&year) {
            // What the description writes for a four-digit year, without its
            // interpreter: every Date in every answer is written here.
            return format!("{year:04}-{:02}-{day:02}", u8::from(month));
        }
        // A `time::Date` always formats with this description (year in range).
        self.0.format(DATE_FORMAT).unwrap_or_default()
    }
}

#[Scalar(name = "Date")]
impl ScalarType for Date {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(s) => Date::parse(s)
                .ok_or_else(|| InputValueError::custom("a Date is written YYYY-MM-DD")),
            _ => Err(InputValueError::expected_type(value)),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(self.to_iso())
    }
}

/// `DateTime`: an instant, RFC 3339 in UTC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateTime(pub String);

#[Scalar(name = "DateTime")]
impl ScalarType for DateTime {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(s)
                if time::OffsetDateTime::parse(
                    s,
                    &time::format_description::well_known::Rfc3339,
                )
                .is_ok() =>
            {
                Ok(Self(s.clone()))
            }
            _ => Err(InputValueError::custom("a DateTime is RFC 3339")),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_date_is_written_as_its_format_description_writes_it() {
        for text in ["0001-01-01", "1968-03-14", "2026-11-27", "9999-12-31"] {
            let date = Date::parse(text).map(|d| d.to_iso());

            assert_eq!(date.as_deref(), Some(text));
        }
        let before_year_zero =
            Date(time::Date::from_calendar_date(-1, time::Month::June, 5).unwrap());
        assert_eq!(
            before_year_zero.to_iso(),
            before_year_zero.0.format(DATE_FORMAT).unwrap()
        );
    }
}
