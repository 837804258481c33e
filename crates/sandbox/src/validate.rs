//! Field rules of the Network API's inputs that do not need the store: phone,
//! email, dates of birth, the sandbox's landline range, and the characters no
//! text may hold. Below the network and the catalog, which both check phones
//! with it; `crate::network` re-exports it as `network::validate`.

use async_graphql::{Name, Value, Variables};

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

/// A character no text field may hold: controls (but tab and newline) and the
/// Unicode direction overrides and isolates, which can make a sig or a name read
/// differently from what is stored.
pub fn is_forbidden_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The path of the first string in `variables` holding a forbidden character,
/// and that character (`$.patient.demographic.name.first`, U+202E). "First" is
/// in the order of the keys' bytes, as a JSON object of sorted keys reads.
///
/// Most requests hold none, so the values are first only looked through, with
/// nothing allocated; the path is written out only for a request that holds one.
pub fn forbidden_text(variables: &Variables, path: &str) -> Option<(String, char)> {
    if !variables.values().any(holds_forbidden) {
        return None;
    }
    let mut steps = Vec::new();
    let c = first_in_fields(variables.iter().collect(), &mut steps)?;
    let mut written = path.to_owned();
    for step in steps.iter().rev() {
        written.push('.');
        written.push_str(step);
    }
    Some((written, c))
}

fn text_forbidden(text: &str) -> Option<char> {
    text.chars().find(|c| is_forbidden_char(*c))
}

/// Whether any string under `value` holds a forbidden character.
fn holds_forbidden(value: &Value) -> bool {
    match value {
        Value::String(s) => text_forbidden(s).is_some(),
        Value::Enum(name) => text_forbidden(name).is_some(),
        Value::List(items) => items.iter().any(holds_forbidden),
        Value::Object(fields) => fields.values().any(holds_forbidden),
        Value::Null | Value::Number(_) | Value::Boolean(_) | Value::Binary(_) => false,
    }
}

/// The first forbidden character under `value`; `steps` gets the keys and
/// indexes leading to it, innermost first.
fn first_forbidden(value: &Value, steps: &mut Vec<String>) -> Option<char> {
    match value {
        Value::String(s) => text_forbidden(s),
        Value::Enum(name) => text_forbidden(name),
        Value::List(items) => items.iter().enumerate().find_map(|(i, v)| {
            let c = first_forbidden(v, steps)?;
            steps.push(i.to_string());
            Some(c)
        }),
        Value::Object(fields) => first_in_fields(fields.iter().collect(), steps),
        Value::Null | Value::Number(_) | Value::Boolean(_) | Value::Binary(_) => None,
    }
}

fn first_in_fields(mut fields: Vec<(&Name, &Value)>, steps: &mut Vec<String>) -> Option<char> {
    fields.sort_unstable_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    fields.into_iter().find_map(|(k, v)| {
        let c = first_forbidden(v, steps)?;
        steps.push(k.to_string());
        Some(c)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variables(json: serde_json::Value) -> async_graphql::Variables {
        async_graphql::Variables::from_json(json)
    }

    #[test]
    fn direction_overrides_and_controls_are_found_with_their_path() {
        let value =
            variables(serde_json::json!({ "patient": { "names": ["ok", "Ann\u{202E}rof"] } }));

        assert_eq!(
            forbidden_text(&value, "$"),
            Some(("$.patient.names.1".to_owned(), '\u{202E}'))
        );
        let clean = variables(serde_json::json!({ "notes": "line one\nline two\ttab" }));
        assert!(forbidden_text(&clean, "$").is_none());
        assert!(is_forbidden_char('\u{0007}'));
    }

    #[test]
    fn of_several_forbidden_characters_the_first_key_in_byte_order_is_named() {
        // Sent with `zeta` first: the path is the same whatever order a client
        // writes the keys in.
        let value: async_graphql::Variables =
            serde_json::from_str(r#"{ "patient": { "zeta": "z\u0007", "alpha": ["a\u202e"] } }"#)
                .unwrap_or_default();

        assert_eq!(
            forbidden_text(&value, "variables"),
            Some(("variables.patient.alpha.0".to_owned(), '\u{202E}'))
        );
    }

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
