//! Prescriptions: drug look-up (options, nothing created), drafts from a
//! template or a drug and their changes, Get (screened now), and signing —
//! each draft with the content hash the prescriber was shown, one call each,
//! a bounded number in flight, progress reported, one result per draft.

use futures::StreamExt as _;
use rxdesk_client::IdempotencyKey;
use rxdesk_client::network::documents::TreatmentReferenceInput;
use rxdesk_client::network::documents::{Prescription, PrescriptionCandidate};
use rxdesk_client::network::{Outcome, SIGNING_IN_FLIGHT, Signing};

use super::{AppCore, ambiguity_note, not_found};
use crate::convert::{change_notes, choice_view, prescription_input, prescription_view};
use crate::index::{Scope, Touch};
use crate::ipc::{
    ChoiceView, CommandError, DraftForm, PrescriptionOutcome, PrescriptionView, RecordKind,
    SignRequest, SignResult, SigningProgress,
};

/// Fewer letters than this are not looked up.
const LOOK_UP_MIN: usize = 2;

impl AppCore {
    /// The catalog's drugs for what was typed.
    pub async fn look_up_drug(&self, query: &str) -> Result<Vec<ChoiceView>, CommandError> {
        let query = query.trim();
        crate::convert::plain_text("drug", "The drug", query)?;
        if query.chars().count() < LOOK_UP_MIN {
            return Ok(Vec::new());
        }
        let (choices, _) = self
            .with_network("look_up_drug", |net| async move {
                net.look_up_drug(TreatmentReferenceInput {
                    name: Some(query.to_owned()),
                    ..Default::default()
                })
                .await
            })
            .await?;
        Ok(choices.iter().map(choice_view).collect())
    }

    pub async fn get_prescription(&self, id: &str) -> Result<PrescriptionView, CommandError> {
        let (outcome, scope) = self
            .with_network("get_prescription", |net| async move {
                net.get_prescription(id).await
            })
            .await?;
        match outcome {
            Outcome::Record {
                record: Some(p), ..
            } => Ok(self.opened_prescription(&scope, p)),
            Outcome::Record { unapplied, .. } => {
                self.forget(&scope, RecordKind::Prescription, id);
                Err(not_found("prescription", &unapplied))
            }
            Outcome::Ambiguous { reason, .. } => Err(CommandError::Protocol { message: reason }),
        }
    }

    pub(super) fn opened_prescription(&self, scope: &Scope, p: Prescription) -> PrescriptionView {
        let view = prescription_view(p);
        self.remember(
            scope,
            RecordKind::Prescription,
            &view.id,
            view.patient_id.as_deref(),
        );
        view
    }

    /// A new draft for `patient_id` (`id` = `None`) or changes to draft `id`.
    pub async fn save_draft(
        &self,
        patient_id: &str,
        id: Option<&str>,
        form: &DraftForm,
    ) -> Result<PrescriptionOutcome, CommandError> {
        crate::convert::check_draft_form(form)?;
        let (outcome, scope) = match id {
            None => {
                let input = prescription_input(Some(patient_id), form);
                // One key for this command, whichever attempts and re-sign-in
                // it takes: a repeat answers the draft the first one made.
                let key = IdempotencyKey::new();
                self.with_network("draft_prescription", |net| {
                    let (input, key) = (input.clone(), &key);
                    async move { net.draft_prescription(input, key).await }
                })
                .await?
            }
            Some(id) => {
                let input = prescription_input(None, form);
                self.with_network("update_prescription", |net| {
                    let input = input.clone();
                    async move { net.update_prescription(id, input).await }
                })
                .await?
            }
        };
        Ok(self.prescription_outcome(&scope, outcome))
    }

    fn prescription_outcome(
        &self,
        scope: &Scope,
        outcome: Outcome<Prescription, PrescriptionCandidate>,
    ) -> PrescriptionOutcome {
        match outcome {
            Outcome::Record {
                record: Some(p),
                unapplied,
                ..
            } => PrescriptionOutcome::Saved {
                prescription: Box::new(self.opened_prescription(scope, p)),
                notes: change_notes(&unapplied),
            },
            Outcome::Record { unapplied, .. } => PrescriptionOutcome::NotSaved {
                problems: change_notes(&unapplied),
            },
            Outcome::Ambiguous { reason, .. } => PrescriptionOutcome::NotSaved {
                problems: vec![ambiguity_note("prescription", reason)],
            },
        }
    }

    /// Signs each draft with the hash that was shown. A refusal or failure of
    /// one stops none of the others; results come back in the input's order.
    pub async fn sign_prescriptions(
        &self,
        items: &[SignRequest],
    ) -> Result<Vec<SignResult>, CommandError> {
        // Signed out altogether: the command fails, as every other does.
        self.signed_in().await?;
        let total = u32::try_from(items.len()).unwrap_or(u32::MAX);
        self.notifier.signing(SigningProgress { done: 0, total });
        // Each signature goes through `with_network`: a token the network
        // rejects is renewed once (by the first call that sees it) and that
        // signature sent again — the network did nothing with the rejected one.
        let mut answers = futures::stream::iter(items.to_vec())
            .map(|item| async move {
                let (id, hash) = (item.id.as_str(), item.content_hash.as_str());
                let answer = self
                    .with_network("sign_prescription", move |net| async move {
                        net.sign_prescription(id, hash).await
                    })
                    .await;
                (item.id, answer)
            })
            .buffered(SIGNING_IN_FLIGHT);
        let mut results = Vec::with_capacity(items.len());
        // The drafts the answers showed, noted in the index in one write at the end.
        let mut opened: Vec<(Scope, Touch)> = Vec::new();
        let mut seen = |scope: Scope, view: &PrescriptionView| {
            opened.push((scope, touch_of(view)));
        };
        let mut done = 0;
        while let Some((id, answer)) = answers.next().await {
            done += 1;
            self.notifier.signing(SigningProgress { done, total });
            results.push(match answer {
                Ok((Signing::Signed(p), scope)) => {
                    let prescription = prescription_view(p);
                    seen(scope, &prescription);
                    SignResult::Signed { prescription }
                }
                Ok((Signing::Invalidated { current, reason }, scope)) => {
                    let current = prescription_view(current);
                    seen(scope, &current);
                    SignResult::Invalidated { current, reason }
                }
                Ok((Signing::Rejected { unapplied, .. }, _)) => SignResult::Rejected {
                    id,
                    reasons: change_notes(&unapplied),
                },
                Err(error) => SignResult::Failed { id, error },
            });
        }
        // Every answer of one batch comes from one session; should a renewal in
        // between have changed the scope, each scope gets its own write.
        let mut by_scope: Vec<(Scope, Vec<Touch>)> = Vec::new();
        for (scope, touch) in opened {
            match by_scope.iter_mut().find(|(s, _)| *s == scope) {
                Some((_, touches)) => touches.push(touch),
                None => by_scope.push((scope, vec![touch])),
            }
        }
        for (scope, touches) in by_scope {
            self.remember_all(&scope, touches).await;
        }
        let signed = results
            .iter()
            .filter(|r| matches!(r, SignResult::Signed { .. }))
            .count();
        tracing::info!(total, signed, "signing finished");
        Ok(results)
    }
}

/// The index entry of a prescription shown to the user.
fn touch_of(view: &PrescriptionView) -> Touch {
    Touch {
        kind: RecordKind::Prescription,
        id: view.id.clone(),
        patient_id: view.patient_id.clone(),
    }
}
