//! Prescriptions: drug and diagnosis look-ups (options, nothing created), drafts from a
//! template or a drug and their changes, Get (screened now), and signing —
//! each draft with the content hash the prescriber was shown, one call each,
//! a bounded number in flight, progress reported, one result per draft.

use futures::StreamExt as _;
use rxdesk_client::network::documents::{DiagnosisReferenceInput, TreatmentReferenceInput};
use rxdesk_client::network::documents::{Prescription, PrescriptionCandidate};
use rxdesk_client::network::{Outcome, SIGNING_IN_FLIGHT, Signing};

use super::{AppCore, ambiguity_note, idempotency_key, is_repeat, not_found, resumable_for};
use crate::convert::{
    again_form, change_notes, choice_view, form_changes, prescription_input, prescription_view,
};
use crate::index::{Scope, Touch};
use crate::ipc::{
    ChoiceView, CommandError, CreateKey, DraftForm, PrescriptionOutcome, PrescriptionView,
    RecordKind, Resumed, SignRequest, SignResult, SigningProgress, SigningState,
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

    /// The catalog's ICD-10 diagnoses for what was typed (a name, or the start
    /// of a code): the network's options, nothing created.
    pub async fn look_up_diagnosis(&self, query: &str) -> Result<Vec<ChoiceView>, CommandError> {
        let query = query.trim();
        crate::convert::plain_text("diagnosis", "The diagnosis", query)?;
        if query.chars().count() < LOOK_UP_MIN {
            return Ok(Vec::new());
        }
        let (choices, _) = self
            .with_network("look_up_diagnosis", |net| async move {
                net.look_up_diagnosis(DiagnosisReferenceInput {
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

    /// A new draft for `patient_id` (`id` = `None`), made under `key`, or
    /// changes to draft `id`.
    ///
    /// A new draft sent again under the same key (the user's "Try again" after
    /// a lost answer) answers the draft the earlier attempt saved, unchanged.
    /// If the form changed since, what it now says differently is sent as an
    /// Update of that draft: one draft, and no edit silently dropped.
    pub async fn save_draft(
        &self,
        patient_id: &str,
        id: Option<&str>,
        key: &CreateKey,
        form: &DraftForm,
    ) -> Result<PrescriptionOutcome, CommandError> {
        crate::convert::check_draft_form(form)?;
        let Some(id) = id else {
            idempotency_key(key)?;
            let input = prescription_input(Some(patient_id), form);
            // The key is kept on disk until the network answers: should the
            // app die before, the next new draft of this drug for this patient
            // is sent under it and finds the draft this attempt saved.
            let drug = drafted_drug(form);
            let ((outcome, sent_under), scope) = self
                .with_network_scoped("draft_prescription", |net, scope| {
                    let input = input.clone();
                    let key = match &drug {
                        Some(drug) => self.draft_key(&scope, patient_id, drug, key),
                        None => key.clone(),
                    };
                    async move {
                        let idempotency = idempotency_key(&key)?;
                        let outcome = net.draft_prescription(input, &idempotency).await?;
                        Ok::<_, CommandError>((outcome, key))
                    }
                })
                .await?;
            self.settle_draft_key(&scope, &sent_under);
            if !is_repeat(&outcome) {
                self.note_template(&scope, form, &outcome);
                return Ok(self.prescription_outcome(&scope, outcome));
            }
            return self.resume_draft(&scope, outcome, patient_id, form).await;
        };
        let input = prescription_input(None, form);
        let (outcome, scope) = self
            .with_network("update_prescription", |net| {
                let input = input.clone();
                async move { net.update_prescription(id, input).await }
            })
            .await?;
        self.note_template(&scope, form, &outcome);
        Ok(self.prescription_outcome(&scope, outcome))
    }

    /// "Prescribe again": a new draft for the patient of the signed prescription
    /// `id`, with its drug, sig, dispense and diagnoses (a signed prescription is final: a
    /// renewal is a new prescription), made under `key` like any new draft and
    /// screened afresh by the network — a new allergy blocks it. Never signed
    /// here: the prescriber reviews it as any draft.
    pub async fn prescribe_again(
        &self,
        id: &str,
        key: &CreateKey,
    ) -> Result<PrescriptionOutcome, CommandError> {
        let signed = self.get_prescription(id).await?;
        if signed.signing != SigningState::Signed {
            return Err(CommandError::Invalid {
                code: "NOT_SIGNED".into(),
                message: "Only a signed prescription is prescribed again; this one is a draft: open it and change it instead.".into(),
                field: None,
            });
        }
        let Some(patient_id) = signed.patient_id.as_deref() else {
            return Err(CommandError::Protocol {
                message: "the network answered the prescription without its patient".into(),
            });
        };
        self.save_draft(patient_id, None, key, &again_form(&signed))
            .await
    }

    /// Keeps the template `form` drafted from when the network applied it, or
    /// forgets it when the network refused it as unknown (see `templates`).
    fn note_template(
        &self,
        scope: &Scope,
        form: &DraftForm,
        outcome: &Outcome<Prescription, PrescriptionCandidate>,
    ) {
        match outcome {
            Outcome::Record {
                record: Some(saved),
                applied,
                ..
            } => self.template_used(scope, form, saved, applied),
            Outcome::Record { unapplied, .. } => self.template_refused(scope, form, unapplied),
            Outcome::Ambiguous { .. } => {}
        }
    }

    /// An earlier attempt of this new draft had saved it: the draft as it is,
    /// with what the form says differently now sent as an Update — unless it
    /// is another patient's (refused, nothing sent).
    async fn resume_draft(
        &self,
        scope: &Scope,
        repeat: Outcome<Prescription, PrescriptionCandidate>,
        patient_id: &str,
        form: &DraftForm,
    ) -> Result<PrescriptionOutcome, CommandError> {
        let Some(saved) = repeat.into_record() else {
            return Err(CommandError::Protocol {
                message: "the network answered a repeated draft without it".into(),
            });
        };
        let saved = prescription_view(saved);
        resumable_for("prescription", saved.patient_id.as_deref(), patient_id)?;
        self.remember(
            scope,
            RecordKind::Prescription,
            &saved.id,
            saved.patient_id.as_deref(),
        );
        tracing::info!("a new draft's earlier attempt had saved it");
        let Some(changes) = form_changes(form, &saved) else {
            return Ok(PrescriptionOutcome::Saved {
                prescription: Box::new(saved),
                notes: Vec::new(),
                resumed: Some(Resumed { updated: false }),
            });
        };
        let input = prescription_input(None, &changes);
        let id = saved.id.as_str();
        let (outcome, scope) = self
            .with_network("update_prescription", |net| {
                let input = input.clone();
                async move { net.update_prescription(id, input).await }
            })
            .await?;
        Ok(match self.prescription_outcome(&scope, outcome) {
            PrescriptionOutcome::Saved {
                prescription,
                notes,
                ..
            } => PrescriptionOutcome::Saved {
                prescription,
                notes,
                resumed: Some(Resumed { updated: true }),
            },
            // The Update saved nothing: the draft stays as the earlier
            // attempt left it, and the problems say why.
            PrescriptionOutcome::NotSaved { problems } => PrescriptionOutcome::Saved {
                prescription: Box::new(saved),
                notes: problems,
                resumed: Some(Resumed { updated: false }),
            },
        })
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
                resumed: None,
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
        self.notifier.signing(SigningProgress {
            done: 0,
            total,
            answered: None,
        });
        // Each signature goes through `with_network`: a token the network
        // rejects is renewed once (by the first call that sees it) and that
        // signature sent again — the network did nothing with the rejected one.
        // The client's window of signatures in flight; a slow answer holds back
        // no other signature (results are put back in order at the end), and
        // the retries of each are told to the UI as that draft's.
        let action = crate::core::actions::current();
        let mut answers = futures::stream::iter(items.iter().cloned().enumerate())
            .map(|(n, item)| {
                let action = action.clone();
                async move {
                    let (id, hash) = (item.id.as_str(), item.content_hash.as_str());
                    let sign = self.with_network("sign_prescription", move |net| async move {
                        net.sign_prescription(id, hash).await
                    });
                    let answer = match action {
                        Some(action) => {
                            let observer = crate::core::actions::retry_observer(
                                self.notifier.clone(),
                                action,
                                Some(item.id.clone()),
                            );
                            rxdesk_client::retry::observe(observer, sign).await
                        }
                        None => sign.await,
                    };
                    (n, item.id, answer)
                }
            })
            .buffer_unordered(SIGNING_IN_FLIGHT);
        let mut results = Vec::with_capacity(items.len());
        // The drafts the answers showed, noted in the index in one write at the end.
        let mut opened: Vec<(Scope, Touch)> = Vec::new();
        let mut seen = |scope: Scope, view: &PrescriptionView| {
            opened.push((scope, touch_of(view)));
        };
        let mut done = 0;
        while let Some((n, id, answer)) = answers.next().await {
            done += 1;
            self.notifier.signing(SigningProgress {
                done,
                total,
                answered: Some(id.clone()),
            });
            results.push((
                n,
                match answer {
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
                },
            ));
        }
        drop(answers);
        results.sort_unstable_by_key(|(n, _)| *n);
        let results: Vec<SignResult> = results.into_iter().map(|(_, r)| r).collect();
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

/// What a new draft is of, for its kept key (`index/pending.rs`): the drug
/// chosen, else the template; `None` when the form names neither (the network
/// refuses it: nothing to keep).
fn drafted_drug(form: &DraftForm) -> Option<String> {
    match (&form.drug_id, &form.template_id) {
        (Some(drug), _) => Some(format!("drug:{drug}")),
        (None, Some(template)) => Some(format!("template:{template}")),
        (None, None) => None,
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
