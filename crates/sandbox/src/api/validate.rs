//! Input rules of the mutations, checked before anything is stored. Each check
//! names the input path of the field it rejects (`name.first`, `address.postalCode`)
//! so a client can point at it. Values are never echoed back in messages.

use time::{Date, Duration, OffsetDateTime, macros::format_description};

use super::errors::Invalid;
use crate::store::clinical::Address;

/// Longest free-text value accepted (names, instructions, notes…).
pub const MAX_TEXT: usize = 1000;
/// Longest short value accepted (names, units, ids…).
pub const MAX_SHORT: usize = 200;

/// US states, DC and the inhabited territories (USPS codes).
const US_STATES: [&str; 56] = [
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
    "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM",
    "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA",
    "WV", "WI", "WY", "AS", "GU", "MP", "PR", "VI",
];

/// True for a USPS state or territory code (upper case).
pub fn is_us_state(code: &str) -> bool {
    US_STATES.contains(&code)
}

/// True for a ZIP code: `12345` or `12345-6789`.
pub fn is_postal_code(code: &str) -> bool {
    let b = code.as_bytes();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    match b.len() {
        5 => digits(b),
        10 => digits(&b[..5]) && b[5] == b'-' && digits(&b[6..]),
        _ => false,
    }
}

/// A required text: trimmed, not empty, at most `max` characters.
pub fn required(field: &str, value: &str, max: usize) -> Result<String, Invalid> {
    let v = value.trim();
    if v.is_empty() {
        return Err(Invalid::input(field, format!("{field} is required")));
    }
    if v.chars().count() > max {
        return Err(Invalid::input(
            field,
            format!("{field} is longer than {max} characters"),
        ));
    }
    Ok(v.to_owned())
}

/// An optional text: trimmed; blank reads as absent; at most `max` characters.
pub fn optional(field: &str, value: Option<&str>, max: usize) -> Result<Option<String>, Invalid> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) if v.chars().count() > max => Err(Invalid::input(
            field,
            format!("{field} is longer than {max} characters"),
        )),
        Some(v) => Ok(Some(v.to_owned())),
    }
}

/// An `externalId`: when given, not blank and at most [`MAX_SHORT`] characters.
pub fn external_id(value: Option<&str>) -> Result<Option<String>, Invalid> {
    match value {
        None => Ok(None),
        Some(v) => required("externalId", v, MAX_SHORT).map(Some),
    }
}

/// A calendar date written `YYYY-MM-DD` that exists.
pub fn date(field: &str, value: &str) -> Result<Date, Invalid> {
    let format = format_description!("[year]-[month]-[day]");
    let v = value.trim();
    if v.len() != 10 {
        return Err(Invalid::input(
            field,
            format!("{field} must be a date written YYYY-MM-DD"),
        ));
    }
    Date::parse(v, format).map_err(|_| {
        Invalid::input(
            field,
            format!("{field} must be a real date written YYYY-MM-DD"),
        )
    })
}

/// The latest date that is "today" somewhere on Earth (UTC+14), so that a birth
/// recorded on its local date is never refused as being in the future.
fn latest_today() -> Date {
    (OffsetDateTime::now_utc() + Duration::hours(14)).date()
}

/// A date of birth: a real date, not in the future, not before 1900.
pub fn birth_date(field: &str, value: &str) -> Result<String, Invalid> {
    let d = date(field, value)?;
    if d > latest_today() {
        return Err(Invalid::input(field, format!("{field} is in the future")));
    }
    if d.year() < 1900 {
        return Err(Invalid::input(field, format!("{field} is before 1900")));
    }
    Ok(d.to_string())
}

/// An email address: one `@`, a non-empty local part, a dotted domain, no spaces.
pub fn email(field: &str, value: &str) -> Result<String, Invalid> {
    let v = value.trim();
    let bad = || Invalid::input(field, format!("{field} is not a valid email address"));
    if v.len() > 254 || v.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad());
    }
    let (local, domain) = v.split_once('@').ok_or_else(bad)?;
    let labels_ok = domain.split('.').all(|l| {
        !l.is_empty()
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars().all(|c| c.is_alphanumeric() || c == '-')
    });
    if local.is_empty() || domain.contains('@') || !domain.contains('.') || !labels_ok {
        return Err(bad());
    }
    Ok(v.to_owned())
}

/// A phone number: digits with the usual separators (`space - . ( )`), an optional
/// leading `+`; 10 digits (US), 11 starting with 1, or 8–15 after a `+`.
pub fn phone(field: &str, value: &str) -> Result<String, Invalid> {
    let v = value.trim();
    let bad = || Invalid::input(field, format!("{field} is not a valid phone number"));
    let (international, rest) = match v.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, v),
    };
    if !rest
        .chars()
        .all(|c| c.is_ascii_digit() || " -.()".contains(c))
    {
        return Err(bad());
    }
    let digits: String = rest.chars().filter(char::is_ascii_digit).collect();
    let ok = if international {
        (8..=15).contains(&digits.len())
    } else {
        digits.len() == 10 || (digits.len() == 11 && digits.starts_with('1'))
    };
    if !ok {
        return Err(bad());
    }
    Ok(v.to_owned())
}

/// The parts of an address as sent.
#[derive(Debug, Clone, Copy)]
pub struct AddressParts<'a> {
    pub street1: &'a str,
    pub street2: Option<&'a str>,
    pub city: &'a str,
    pub state: &'a str,
    pub postal_code: &'a str,
    pub country: Option<&'a str>,
}

/// A US postal address; fields are reported as `{prefix}.{field}`.
pub fn address(prefix: &str, a: AddressParts<'_>) -> Result<Address, Invalid> {
    let f = |name: &str| format!("{prefix}.{name}");
    let street1 = required(&f("street1"), a.street1, MAX_SHORT)?;
    let street2 = optional(&f("street2"), a.street2, MAX_SHORT)?;
    let city = required(&f("city"), a.city, MAX_SHORT)?;
    let country = match a.country.map(str::trim) {
        None | Some("") => "US".to_owned(),
        Some(c) if c.eq_ignore_ascii_case("US") || c.eq_ignore_ascii_case("USA") => "US".to_owned(),
        Some(_) => {
            return Err(Invalid::input(
                f("country"),
                "only US addresses are supported (country US)",
            ));
        }
    };
    let state = a.state.trim().to_ascii_uppercase();
    if !is_us_state(&state) {
        return Err(Invalid::input(
            f("state"),
            format!("{} must be a two-letter US state code", f("state")),
        ));
    }
    let postal_code = a.postal_code.trim().to_owned();
    if !is_postal_code(&postal_code) {
        return Err(Invalid::input(
            f("postalCode"),
            format!(
                "{} must be a US ZIP code (12345 or 12345-6789)",
                f("postalCode")
            ),
        ));
    }
    Ok(Address {
        street1,
        street2,
        city,
        state,
        postal_code,
        country,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn dates_must_exist() {
        assert!(date("d", "2024-02-29").is_ok());
        assert!(date("d", "2023-02-29").is_err());
        assert!(date("d", "2023-13-01").is_err());
        assert!(date("d", "01/02/2003").is_err());
        assert!(date("d", "2023-1-01").is_err());
    }

    #[test]
    fn birth_dates_are_not_in_the_future() {
        assert!(birth_date("dateOfBirth", "1980-05-17").is_ok());
        assert!(birth_date("dateOfBirth", "2999-01-01").is_err());
        assert!(birth_date("dateOfBirth", "1850-01-01").is_err());
    }

    #[test]
    fn emails_are_well_formed() {
        assert!(email("email", "ada@maple.example").is_ok());
        for bad in [
            "ada",
            "ada@",
            "@maple.example",
            "ada@maple",
            "a b@maple.example",
            "ada@@maple.example",
            "ada@maple..example",
        ] {
            assert!(email("email", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn phones_are_well_formed() {
        for good in [
            "(503) 555-0110",
            "503-555-0110",
            "5035550110",
            "+1 503 555 0110",
            "1-503-555-0110",
            "+44 20 7946 0958",
        ] {
            assert!(phone("phone", good).is_ok(), "{good}");
        }
        for bad in [
            "555-0110",
            "call me",
            "503-555-01100",
            "+12",
            "503_555_0110",
        ] {
            assert!(phone("phone", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn addresses_need_a_us_state_and_zip() {
        let good = AddressParts {
            street1: "1 Main St",
            street2: None,
            city: "Portland",
            state: "or",
            postal_code: "97214",
            country: None,
        };
        let a = address("address", good).unwrap();
        assert_eq!((a.state.as_str(), a.country.as_str()), ("OR", "US"));
        let e = address(
            "address",
            AddressParts {
                state: "XX",
                ..good
            },
        )
        .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("address.state"));
        let e = address(
            "address",
            AddressParts {
                postal_code: "9721",
                ..good
            },
        )
        .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("address.postalCode"));
        let e = address(
            "address",
            AddressParts {
                country: Some("FR"),
                ..good
            },
        )
        .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("address.country"));
        assert!(is_postal_code("97214-1234"));
    }

    #[test]
    fn required_text_rejects_blank_and_overlong() {
        assert_eq!(required("name.first", "  Ada ", 10).unwrap(), "Ada");
        assert_eq!(
            required("name.first", "   ", 10)
                .unwrap_err()
                .field
                .as_deref(),
            Some("name.first")
        );
        assert!(required("x", "abcdefghijk", 10).is_err());
        assert_eq!(optional("x", Some("  "), 10).unwrap(), None);
    }
}
