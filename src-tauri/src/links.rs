//! `rxdesk://` links: how a record is named for hand-off between people
//! (`rxdesk://patient/pat_…`, `rxdesk://prescription/rx_…`,
//! `rxdesk://order/ord_…`) and how a pasted link or bare id is read back.
//! A link only names a record: opening one navigates, nothing more.

use crate::ipc::{CommandError, LinkTarget, RecordKind};

/// The URL scheme this build registers with the OS: the training build has its
/// own, so a production link never opens in it (nor a training link in production).
pub const SCHEME: &str = if cfg!(feature = "training") {
    TRAINING_SCHEME
} else {
    PRODUCTION_SCHEME
};
/// The production app's scheme (`plugins.deep-link` in `tauri.conf.json`).
pub const PRODUCTION_SCHEME: &str = "rxdesk";
/// The training build's scheme (`plugins.deep-link` in `tauri.training.conf.json`).
pub const TRAINING_SCHEME: &str = "rxdesk-training";

fn segment(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::Patient => "patient",
        RecordKind::Prescription => "prescription",
        RecordKind::Order => "order",
    }
}

/// The link to a record.
pub fn link(kind: RecordKind, id: &str) -> String {
    format!("{SCHEME}://{}/{id}", segment(kind))
}

fn invalid(message: &str) -> CommandError {
    CommandError::Invalid {
        code: "INVALID_LINK".into(),
        message: message.into(),
        field: Some("link".into()),
    }
}

/// An id is the network's: letters, digits, `_` and `-`, at most 128 of them.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The kind an id's prefix names (`pat_`, `rx_`, `ord_`), as the network makes them.
fn kind_of_id(id: &str) -> Option<RecordKind> {
    let prefix = id.split('_').next()?;
    match prefix {
        "pat" => Some(RecordKind::Patient),
        "rx" => Some(RecordKind::Prescription),
        "ord" => Some(RecordKind::Order),
        _ => None,
    }
}

/// Reads a `rxdesk://kind/id` link, or a bare id whose prefix names its kind.
pub fn parse(text: &str) -> Result<LinkTarget, CommandError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(invalid(&format!("Paste a link ({SCHEME}://…) or an id.")));
    }
    if !text.contains("://") {
        return match kind_of_id(text) {
            Some(kind) if valid_id(text) => Ok(LinkTarget {
                kind,
                id: text.to_owned(),
            }),
            _ => Err(invalid(
                "That is not an id Rx Desk knows: ids start with pat_, rx_ or ord_.",
            )),
        };
    }
    let url = url::Url::parse(text).map_err(|_| invalid("That link cannot be read."))?;
    if url.scheme() != SCHEME {
        return Err(invalid(&format!("Only {SCHEME}:// links open here.")));
    }
    let kind = match url.host_str() {
        Some("patient") => RecordKind::Patient,
        Some("prescription") => RecordKind::Prescription,
        Some("order") => RecordKind::Order,
        _ => {
            return Err(invalid("The link names no patient, prescription or order."));
        }
    };
    let id = url.path().trim_start_matches('/');
    // The parser resolves `.` and `..` segments (`rxdesk://order/../../etc`
    // reads as `/etc`): the id must be exactly what the link says after its kind.
    let as_written = text
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('/'))
        .map(|(_, path)| path);
    if !valid_id(id) || as_written != Some(id) || url.query().is_some() || url.fragment().is_some()
    {
        return Err(invalid("The link's id cannot be read."));
    }
    Ok(LinkTarget {
        kind,
        id: id.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_link_reads_back_as_the_record_it_names() {
        for kind in [
            RecordKind::Patient,
            RecordKind::Prescription,
            RecordKind::Order,
        ] {
            let target = parse(&link(kind, "abc_123")).unwrap();
            assert_eq!(
                target,
                LinkTarget {
                    kind,
                    id: "abc_123".into()
                }
            );
        }
    }

    #[test]
    fn a_bare_id_is_read_by_its_prefix() {
        assert_eq!(parse(" rx_01H ").unwrap().kind, RecordKind::Prescription);
        assert_eq!(parse("ord_9").unwrap().kind, RecordKind::Order);
        assert_eq!(parse("pat_x").unwrap().kind, RecordKind::Patient);
    }

    #[test]
    fn other_schemes_unknown_kinds_and_odd_ids_are_refused() {
        for text in [
            "",
            "https://example.org/order/ord_1",
            "rxdesk://sign/rx_1",
            "rxdesk://order/ord_1?then=send",
            "rxdesk://order/../../etc",
            "rxdesk://order/",
            "hello",
            "rx_1; drop",
        ] {
            assert!(
                matches!(parse(text), Err(CommandError::Invalid { .. })),
                "{text:?} was accepted"
            );
        }
    }
}
