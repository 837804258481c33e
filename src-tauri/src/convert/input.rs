//! What every form passes through on its way to the network: text refused when
//! it holds a control or text-direction character ([`plain_text`]), trimmed
//! ([`trimmed`]), and ids typed as the network's.

use crate::ipc::CommandError;

/// Control characters and the text-direction overrides and isolates (U+202A–
/// U+202E, U+2066–U+2069): invisible, and able to make a name or a sig read
/// differently from what is stored.
fn hostile(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

/// Refuses text holding a control or text-direction character, naming the
/// field (`field`, as the UI calls it; `label`, as the user reads it).
pub fn plain_text(field: &str, label: &str, value: &str) -> Result<(), CommandError> {
    if value.chars().any(hostile) {
        return Err(CommandError::Invalid {
            code: "INVALID_TEXT".into(),
            message: format!(
                "{label} holds an invisible control or text-direction character, which could make it read differently from what is stored. Type it again without it."
            ),
            field: Some(field.into()),
        });
    }
    Ok(())
}

/// The text without surrounding blanks; `None` when nothing is left.
pub(crate) fn trimmed(value: Option<&str>) -> Option<String> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

pub(crate) fn id(value: &str) -> cynic::Id {
    cynic::Id::new(value)
}
