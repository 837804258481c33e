//! Field rules of the Network API's inputs that do not need the store: phone,
//! email, dates of birth, and the sandbox's landline range.

/// E.164: `+` and 8–15 digits, the first not 0.
pub fn is_phone(phone: &str) -> bool {
    let Some(digits) = phone.strip_prefix('+') else {
        return false;
    };
    (8..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0')
}

/// The sandbox's landlines: North American numbers `+1 NPA 555-019X`. Every other
/// valid number takes texts.
pub fn takes_texts(phone: &str) -> bool {
    let landline = phone.len() == 12 && phone.starts_with("+1") && phone[5..11] == *"555019";
    is_phone(phone) && !landline
}

/// Something `@` something with a dot after the `@`, no spaces.
pub fn is_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.contains(char::is_whitespace)
        && !domain.contains('@')
}

/// Why a date of birth cannot be right, if it cannot.
pub fn date_of_birth_problem(date: time::Date) -> Option<&'static str> {
    let today = time::OffsetDateTime::now_utc().date();
    if date > today {
        Some("The date of birth is in the future")
    } else if date.year() < 1900 {
        Some("The date of birth is before 1900")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones_are_e164() {
        assert!(is_phone("+16175550103"));
        assert!(!is_phone("6175550103"));
        assert!(!is_phone("+0123456789"));
        assert!(!is_phone("+1617555010a"));
    }

    #[test]
    fn the_landline_range_does_not_take_texts() {
        assert!(takes_texts("+16175550103"));
        assert!(!takes_texts("+16175550192"));
        assert!(!takes_texts("not a phone"));
    }

    #[test]
    fn emails_need_a_domain_with_a_dot() {
        assert!(is_email("a@b.example"));
        assert!(!is_email("a@b"));
        assert!(!is_email("a b@c.d"));
        assert!(!is_email("@c.d"));
    }
}
