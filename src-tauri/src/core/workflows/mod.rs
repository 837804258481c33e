//! The clinic's work on the Network API: [`patients`] (search, add, edit, the
//! clinical record), [`prescriptions`] (drug look-up, drafts, signing by content
//! hash), [`templates`] (the templates drafted from here, offered by name),
//! [`orders`] (drafts, pharmacy, send, cancel) and [`lists`] (the work lists
//! read from the local index). A create carries the UI's key of the user
//! action (`CreateKey`, the network's `externalId`): a repeat answers the
//! record the first attempt made, and what the form says differently since is
//! sent as an Update of it — only when that record is the form's patient's
//! ([`resumable_for`]). Each is a call to `rxdesk-client`'s
//! `Network` through [`AppCore::with_network`], its answer turned into IPC shapes
//! by `crate::convert`, and the ids it touched written to the index.

mod lists;
mod orders;
mod patients;
mod prescriptions;
mod templates;

use rxdesk_client::IdempotencyKey;
use rxdesk_client::network::Outcome;
use rxdesk_client::network::documents::Change;

use super::AppCore;
use crate::index::{Scope, Touch};
use crate::ipc::{ChangeNote, ChangeSeverity, ChangeStatus, CommandError, CreateKey, RecordKind};

impl AppCore {
    /// Notes that `id` was created or opened. The index is a convenience: a
    /// failure to write it is logged, never a failed command.
    fn remember(&self, scope: &Scope, kind: RecordKind, id: &str, patient_id: Option<&str>) {
        if let Err(e) = self.index.touch(scope, kind, id, patient_id) {
            tracing::warn!(error = %e, "local index not updated");
        }
    }

    /// Notes a batch of records created or opened (e.g. the drafts a batch
    /// signed): one transaction, on a blocking thread so the async runtime never
    /// waits on the disk. Failures are logged, as [`AppCore::remember`]'s.
    async fn remember_all(&self, scope: &Scope, touches: Vec<Touch>) {
        let (index, scope) = (self.index.clone(), scope.clone());
        let written = tokio::task::spawn_blocking(move || index.touch_many(&scope, &touches)).await;
        match written {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "local index not updated"),
            Err(e) => tracing::warn!(error = %e, "local index writer stopped"),
        }
    }

    /// The key to send a new draft of `drug` for `patient_id` under: one kept
    /// from an attempt the network never answered, else `offered` (kept until
    /// the answer). The index failing costs only that protection: logged, and
    /// `offered` is used.
    fn draft_key(
        &self,
        scope: &Scope,
        patient_id: &str,
        drug: &str,
        offered: &CreateKey,
    ) -> CreateKey {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        match self
            .index
            .draft_key(scope, patient_id, drug, &offered.0, now)
        {
            Ok(kept) => {
                if kept != offered.0 {
                    tracing::info!(
                        "a new draft is sent under the key of an unanswered earlier attempt"
                    );
                }
                CreateKey(kept)
            }
            Err(e) => {
                tracing::warn!(error = %e, "local index: the new draft's key is not kept");
                offered.clone()
            }
        }
    }

    /// The network answered the new draft sent under `key`.
    fn settle_draft_key(&self, scope: &Scope, key: &CreateKey) {
        if let Err(e) = self.index.settle_draft_key(scope, &key.0) {
            tracing::warn!(error = %e, "local index: a new draft's kept key not dropped");
        }
    }

    /// Drops an id the network no longer answers for.
    fn forget(&self, scope: &Scope, kind: RecordKind, id: &str) {
        if let Err(e) = self.index.forget(scope, kind, id) {
            tracing::warn!(error = %e, "local index not updated");
        }
    }
}

/// The error for a Get that found nothing: the network's own reason when it gave one.
fn not_found(what: &str, unapplied: &[Change]) -> CommandError {
    CommandError::NotFound {
        message: unapplied
            .iter()
            .find_map(|c| c.reason.clone())
            .unwrap_or_else(|| {
                format!("The network has no {what} with this id in this organization.")
            }),
    }
}

/// Refuses to resume a create whose repeat answered a `what` (a prescription,
/// an order) of another patient than the form's: the key was used for another
/// patient's record, so the form's edits must not land on it. Nothing is sent.
fn resumable_for(
    what: &str,
    saved_patient: Option<&str>,
    patient_id: &str,
) -> Result<(), CommandError> {
    if saved_patient == Some(patient_id) {
        return Ok(());
    }
    tracing::warn!(
        record = what,
        "a repeated create answered a record of another patient: not resumed"
    );
    Err(CommandError::Invalid {
        code: "KEY_OF_ANOTHER_PATIENT".into(),
        message: format!(
            "The network answered this action's key with a {what} of another patient, so nothing was changed. Start the {what} again from this patient's page."
        ),
        field: None,
    })
}

/// An ambiguity where the app expected a record (it never sends what could be
/// ambiguous here), shown as a blocking note rather than lost.
fn ambiguity_note(key: &str, reason: String) -> ChangeNote {
    ChangeNote {
        key: key.to_owned(),
        label: "Several records fit".to_owned(),
        status: ChangeStatus::Ambiguous,
        severity: ChangeSeverity::Blocking,
        reason: Some(reason),
        options: Vec::new(),
    }
}

/// The UI's key of a create, as the client sends it (`externalId`).
fn idempotency_key(key: &CreateKey) -> Result<IdempotencyKey, CommandError> {
    key.0
        .parse()
        .map_err(|e: rxdesk_client::InvalidKey| CommandError::Invalid {
            code: "INVALID_KEY".into(),
            message: format!("The action's key is not usable: {e}."),
            field: None,
        })
}

/// Whether a keyed create answered a record an earlier attempt made: the
/// network answers a known `externalId` with that record and no changes at
/// all, where a record it makes now always comes with what it applied.
fn is_repeat<R, C>(outcome: &Outcome<R, C>) -> bool {
    matches!(
        outcome,
        Outcome::Record { record: Some(_), applied, unapplied }
            if applied.is_empty() && unapplied.is_empty()
    )
}
