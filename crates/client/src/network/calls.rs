//! [`Network`]: one typed async fn per call shape of the Network API. Each builds
//! its input, fills `metadata` (source, client name and version, a request id for
//! support), sends the call shape's document through the shared transport under
//! the retry policy ([`crate::retry`]) and decodes the answer into an
//! [`Outcome`] or a [`ClientError`].
//!
//! Which calls are sent again after transient trouble (a connection lost, no
//! answer in time, 502/503/504, 429, a `retryable` `UpstreamServiceError`) — a
//! lost answer may mean the first one *was* applied, so only a call whose repeat
//! cannot act twice is repeated. A refusal is never retried.
//!
//! | call | kind | retried? | why |
//! | --- | --- | --- | --- |
//! | `ping`, `get_*`, `find_patients`, `look_up_drug`, `look_up_diagnosis`, `check_compatibility` | read | yes | they change nothing (a patient search never carries sex, so it can never add anyone) |
//! | `sync_patient` | write | yes, unless it adds benefits | the network matches a patient by name and date of birth, so a repeat finds the patient the first call added; list `add`s of entries on file and `remove`s of entries not on file are no-ops; a benefit `add` is not matched, so a repeat would add it twice |
//! | `update_patient` | write | as `sync_patient` | setting a field twice leaves it as once |
//! | `draft_prescription` | write | yes | its [`IdempotencyKey`] is the `externalId`: a repeat answers the first draft |
//! | `update_prescription` | write | yes | fields are set; diagnosis patches repeat as no-ops |
//! | `sign_prescription(s)` | sign | yes | the network answers a repeated signature of the same hash as the signed prescription; a changed draft still answers `INVALIDATED_SIGN` |
//! | `draft_order` | write | yes | its [`IdempotencyKey`] is the `externalId` |
//! | `update_order`, `find_pharmacies`, `find_preferred_pharmacy` | write | yes | adding a prescription already on the order, or removing one no longer on it, is a no-op; a pharmacy is set, not added |
//! | `send_order`, `cancel_order` | write | yes | the network answers a repeat with the order as it is |
//!
//! A machine token never signs: [`Network::sign_prescription`] on a backend's
//! connection is refused here, before anything is sent.

use cynic::{Id, MutationBuilder as _, QueryBuilder as _};
use futures::StreamExt as _;
use serde::de::DeserializeOwned;

use super::documents::*;
use super::outcome::{self, Choice, Outcome};
use super::rendered::{Request, request};
use crate::error::{ClientError, shape_error};
use crate::idempotency::IdempotencyKey;
use crate::retry::{CallKind, Repeat};
use crate::transport::Transport;

/// How many signatures [`Network::sign_prescriptions`] keeps in flight by default.
///
/// Signing N drafts costs about one round trip plus N times the network's own
/// work per signature when all N are out at once; a window smaller than the
/// batch adds a round trip per extra wave. At 64, a batch of 100 on a clinic's
/// link (60 ± 20 ms round trip) came back in two waves — the window's progress
/// events showed half the answers by 92 ms and the last 10 % from 145 ms, 2.04×
/// one signature (`rxdesk-bench --only felt`, issue 48) — so the window covers
/// the batches a prescriber signs at once. 128 is also the stream limit many
/// HTTP/2 servers advertise: on a network that offers HTTP/2 the window is so
/// many streams on the one connection; on HTTP/1.1, up to so many connections.
/// (At the tree before the sandbox wrote on one thread, `examples/signing_window.rs`
/// found 100 in flight slower than 64: the network's work per signature, not
/// the round trips, was then what was left.)
pub const SIGNING_IN_FLIGHT: usize = 128;

/// The Network API as one caller (a signed-in user or a backend) sees it.
/// Cheap to clone; clones share the HTTP pool and machine tokens.
#[derive(Debug, Clone)]
pub struct Network {
    transport: Transport,
    client_name: String,
    source: RequestSource,
}

/// A patient search: partial demographics. It never carries sex, so the network
/// can never take it as enough to add someone.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PatientSearch {
    pub first: Option<String>,
    pub last: Option<String>,
    /// `YYYY-MM-DD`.
    pub date_of_birth: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// The answer to a signature.
#[derive(Debug, Clone)]
pub enum Signing {
    /// Signed: the prescription is final.
    Signed(Prescription),
    /// The content changed since it was reviewed (`INVALIDATED_SIGN`): show
    /// `current` and ask the prescriber to sign again.
    Invalidated {
        current: Prescription,
        reason: String,
    },
    /// Not signed, for the reasons in `unapplied` (blocked by screening, already
    /// signed, unknown id, …).
    Rejected {
        prescription: Option<Prescription>,
        unapplied: Vec<Change>,
    },
}

/// The answer to a pharmacy search through an order (`R` = [`Order`]) or a
/// patient's preferred pharmacy (`R` = [`Patient`]).
#[derive(Debug, Clone)]
pub enum PharmacyMatches<R = Order> {
    /// Exactly one pharmacy fitted: the network set it on the record.
    Chosen(Box<R>),
    /// Several fitted: choose one and send its id ([`Network::update_order`],
    /// [`Network::update_patient`]).
    Options(Vec<Choice>),
    /// None fitted, or the search could not be used: the network's reasons.
    Nothing(Vec<Change>),
}

/// What an order update changes.
#[derive(Debug, Clone, Default)]
pub struct OrderChanges {
    pub add: Vec<String>,
    pub remove: Vec<String>,
    /// `Some(Some(reference))` chooses a pharmacy, `Some(None)` leaves it to the patient.
    pub pharmacy: Option<Option<PharmacyReferenceInput>>,
}

/// Reads: retried.
const READ: (CallKind, Repeat) = (CallKind::Read, Repeat::Safe);
/// Writes whose repeat cannot act twice: retried.
const WRITE: (CallKind, Repeat) = (CallKind::Write, Repeat::Safe);
/// Signatures: retried (a repeat of the same hash is harmless).
const SIGN: (CallKind, Repeat) = (CallKind::Sign, Repeat::Safe);

/// Whether a patient Sync or Update may be repeated: not when it adds a
/// benefit (the network does not match benefits, so a repeat adds it twice).
/// Every other part repeats harmlessly: fields are set, list `add`s of entries
/// on file and `remove`s of entries not on file are no-ops.
fn patient_repeat(input: &PatientInput) -> Repeat {
    let adds_benefits = input
        .demographic
        .as_ref()
        .and_then(|d| d.benefits.as_ref())
        .and_then(|b| b.add.as_ref())
        .is_some_and(|added| !added.is_empty());
    if adds_benefits {
        Repeat::Never
    } else {
        Repeat::Safe
    }
}

fn id(value: &str) -> Id {
    Id::new(value)
}

fn request_id() -> String {
    let bytes: [u8; 8] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Network {
    pub(crate) fn new(transport: Transport) -> Self {
        Self {
            transport,
            client_name: "rxdesk".to_owned(),
            source: RequestSource::DirectApi,
        }
    }

    pub(crate) fn transport(&self) -> &Transport {
        &self.transport
    }

    /// Names the client in every call's metadata (default `rxdesk`, source `DIRECT_API`).
    pub fn with_client(mut self, name: impl Into<String>, source: RequestSource) -> Self {
        self.client_name = name.into();
        self.source = source;
        self
    }

    fn metadata(&self) -> RequestMetadata {
        RequestMetadata {
            source: self.source,
            client: Some(self.client_name.clone()),
            source_version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            request_id: Some(request_id()),
        }
    }

    /// Sends `operation` as a call of `kind`, repeated after transient trouble
    /// only when `repeat` allows.
    async fn send<Q: DeserializeOwned + 'static, V: serde::Serialize, T>(
        &self,
        name: &'static str,
        operation: Request<Q, V>,
        (kind, repeat): (CallKind, Repeat),
        finish: impl Fn(Q) -> Result<T, ClientError>,
    ) -> Result<T, ClientError> {
        let body = operation.body().map_err(|e| {
            ClientError::protocol(format!("cannot encode {name}: {}", shape_error(&e)))
        })?;
        self.transport.send(name, kind, repeat, body, finish).await
    }

    /// `{ ping }`: tests the token; touches no records.
    pub async fn ping(&self) -> Result<String, ClientError> {
        self.send("ping", request(Ping::build, ()), READ, |data| {
            data.ping
                .ok_or_else(|| ClientError::protocol("ping answered null"))
        })
        .await
    }

    fn patient_arguments(&self, patient: PatientInput) -> PatientArguments {
        PatientArguments {
            patient,
            metadata: self.metadata(),
        }
    }

    fn prescription_arguments(&self, prescription: PrescriptionInput) -> PrescriptionArguments {
        PrescriptionArguments {
            prescription,
            metadata: self.metadata(),
        }
    }

    fn order_arguments(&self, order: OrderInput) -> OrderArguments {
        OrderArguments {
            order,
            metadata: self.metadata(),
        }
    }

    // ---------- patients

    /// Get `{ id }`: the patient; nothing changes.
    pub async fn get_patient(
        &self,
        patient_id: &str,
    ) -> Result<Outcome<Patient, PatientCandidate>, ClientError> {
        let input = PatientInput {
            id: Some(id(patient_id)),
            ..Default::default()
        };
        let operation = request(GetPatient::build, self.patient_arguments(input));
        self.send("get_patient", operation, READ, |d| {
            outcome::patient_outcome(d.patient)
        })
        .await
    }

    /// The patients that fit partial demographics, for a person to choose from.
    /// Never sends sex, so it can never add anyone; an exact match comes back as
    /// its one candidate.
    pub async fn find_patients(
        &self,
        search: &PatientSearch,
    ) -> Result<Vec<PatientCandidate>, ClientError> {
        let input = PatientInput {
            demographic: Some(PatientDemographicInput {
                name: (search.first.is_some() || search.last.is_some()).then(|| HumanNameInput {
                    first: search.first.clone(),
                    last: search.last.clone(),
                    ..Default::default()
                }),
                date_of_birth: search.date_of_birth.clone().map(Date),
                email: search.email.clone(),
                phone: search.phone.clone(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let operation = request(FindPatients::build, self.patient_arguments(input));
        self.send("find_patients", operation, READ, |d| {
            Ok(match outcome::patient_outcome(d.patient)? {
                Outcome::Ambiguous { candidates, .. } => candidates,
                Outcome::Record {
                    record: Some(p), ..
                } => vec![candidate_of(&p)],
                Outcome::Record { record: None, .. } => Vec::new(),
            })
        })
        .await
    }

    /// Sync: the network matches, updates, adds, or answers candidates. The
    /// real network's patients carry no `externalId`: a repeat after a lost
    /// answer is matched by name and date of birth to the patient the first
    /// call added, so it is retried (unless it adds benefits, which a repeat
    /// would add twice).
    pub async fn sync_patient(
        &self,
        patient: PatientInput,
    ) -> Result<Outcome<Patient, PatientCandidate>, ClientError> {
        let input = PatientInput {
            id: None,
            ..patient
        };
        let repeat = patient_repeat(&input);
        let operation = request(SyncPatient::build, self.patient_arguments(input));
        self.send("sync_patient", operation, (CallKind::Write, repeat), |d| {
            outcome::patient_outcome(d.patient)
        })
        .await
    }

    /// Update `{ id, … }`: only the fields given change (clinical lists by patch).
    pub async fn update_patient(
        &self,
        patient_id: &str,
        demographic: Option<PatientDemographicInput>,
        clinical: Option<PatientClinicalInput>,
    ) -> Result<Outcome<Patient, PatientCandidate>, ClientError> {
        let input = PatientInput {
            id: Some(id(patient_id)),
            demographic,
            clinical,
        };
        let repeat = patient_repeat(&input);
        let operation = request(UpdatePatient::build, self.patient_arguments(input));
        self.send(
            "update_patient",
            operation,
            (CallKind::Write, repeat),
            |d| outcome::patient_outcome(d.patient),
        )
        .await
    }

    // ---------- prescriptions

    /// A drug look-up: the catalog's matches as choices; nothing is created.
    pub async fn look_up_drug(
        &self,
        treatment: TreatmentReferenceInput,
    ) -> Result<Vec<Choice>, ClientError> {
        let input = PrescriptionInput {
            treatment: Some(treatment),
            ..Default::default()
        };
        let operation = request(LookUpDrug::build, self.prescription_arguments(input));
        self.send("look_up_drug", operation, READ, |d| {
            let outcome = outcome::prescription_outcome(d.prescription)?;
            Ok(outcome
                .unapplied()
                .iter()
                .find(|c| c.key == "treatment")
                .map(|c| c.choices())
                .unwrap_or_default())
        })
        .await
    }

    /// A diagnosis look-up (`{ clinical: { diagnoses: { add: [diagnosis] } } }`,
    /// no patient): the catalog's ICD-10 matches as choices, each answering
    /// `clinical.diagnoses.add.0.id`; nothing is created. A diagnosis that fits
    /// nothing is no choice at all.
    pub async fn look_up_diagnosis(
        &self,
        diagnosis: DiagnosisReferenceInput,
    ) -> Result<Vec<Choice>, ClientError> {
        let input = PrescriptionInput {
            clinical: Some(PrescriptionClinicalInput {
                diagnoses: Some(DiagnosesPatch {
                    add: Some(vec![diagnosis]),
                    ..Default::default()
                }),
                notes: None,
            }),
            ..Default::default()
        };
        let operation = request(LookUpDiagnosis::build, self.prescription_arguments(input));
        self.send("look_up_diagnosis", operation, READ, |d| {
            let outcome = outcome::prescription_outcome(d.prescription)?;
            Ok(outcome
                .unapplied()
                .iter()
                .find(|c| c.key == "clinical.diagnoses.add.0")
                .map(|c| c.choices())
                .unwrap_or_default())
        })
        .await
    }

    /// A draft for `prescription.patient` from a treatment or a template (or the
    /// patient's draft in progress continued). `key` is sent as its
    /// `externalId` (replacing any in `prescription`): the network answers a
    /// repeat of it with the first draft, so the call is retried, and sending
    /// it again with the same key after a failure never makes a second draft.
    pub async fn draft_prescription(
        &self,
        prescription: PrescriptionInput,
        key: &IdempotencyKey,
    ) -> Result<Outcome<Prescription, PrescriptionCandidate>, ClientError> {
        let input = PrescriptionInput {
            id: None,
            signing: None,
            external_id: Some(key.to_string()),
            ..prescription
        };
        let operation = request(DraftPrescription::build, self.prescription_arguments(input));
        self.send("draft_prescription", operation, WRITE, |d| {
            outcome::prescription_outcome(d.prescription)
        })
        .await
    }

    /// Update `{ id, … }` of a draft: only the fields given change.
    pub async fn update_prescription(
        &self,
        prescription_id: &str,
        changes: PrescriptionInput,
    ) -> Result<Outcome<Prescription, PrescriptionCandidate>, ClientError> {
        let input = PrescriptionInput {
            id: Some(id(prescription_id)),
            signing: None,
            ..changes
        };
        let operation = request(
            UpdatePrescription::build,
            self.prescription_arguments(input),
        );
        self.send("update_prescription", operation, WRITE, |d| {
            outcome::prescription_outcome(d.prescription)
        })
        .await
    }

    /// Get `{ id }`: the prescription, draft or signed, screened now.
    pub async fn get_prescription(
        &self,
        prescription_id: &str,
    ) -> Result<Outcome<Prescription, PrescriptionCandidate>, ClientError> {
        let input = PrescriptionInput {
            id: Some(id(prescription_id)),
            ..Default::default()
        };
        let operation = request(GetPrescription::build, self.prescription_arguments(input));
        self.send("get_prescription", operation, READ, |d| {
            outcome::prescription_outcome(d.prescription)
        })
        .await
    }

    /// Signs exactly the content the prescriber reviewed: `content_hash` is the
    /// `signing.contentHash` that was shown. Retried after transient trouble:
    /// the network answers a repeated signature of the same hash as harmless,
    /// and a changed draft still as [`Signing::Invalidated`]. On a machine
    /// token's connection ([`Client::machine_network`](crate::Client::machine_network))
    /// it is refused here, sending nothing: a machine token never signs.
    pub async fn sign_prescription(
        &self,
        prescription_id: &str,
        content_hash: &str,
    ) -> Result<Signing, ClientError> {
        if self.transport.is_machine() {
            return self.transport.refuse(
                "sign_prescription",
                ClientError::Refused {
                    code: "PRESCRIPTION_SIGNING_UNAUTHORIZED".to_owned(),
                    message: "A machine token never signs: a prescriber signs, signed in \
                              with their own account"
                        .to_owned(),
                    required_permission: Some("write:prescription".to_owned()),
                },
            );
        }
        let input = PrescriptionInput {
            id: Some(id(prescription_id)),
            signing: Some(PrescriptionSigningDetailsInput {
                signed_hash: Some(content_hash.to_owned()),
                message: None,
            }),
            ..Default::default()
        };
        let operation = request(SignPrescription::build, self.prescription_arguments(input));
        self.send(
            "sign_prescription",
            operation,
            SIGN,
            |d| match outcome::prescription_outcome(d.prescription)? {
                Outcome::Record {
                    record: Some(p),
                    unapplied,
                    ..
                } => Ok(match p.signing.state {
                    PrescriptionSigningState::Signed if unapplied.is_empty() => Signing::Signed(p),
                    PrescriptionSigningState::InvalidatedSign => Signing::Invalidated {
                        reason: unapplied
                            .iter()
                            .find_map(|c| c.reason.clone())
                            .unwrap_or_else(|| {
                                "The prescription changed since it was reviewed".to_owned()
                            }),
                        current: p,
                    },
                    _ => Signing::Rejected {
                        prescription: Some(p),
                        unapplied,
                    },
                }),
                Outcome::Record {
                    record: None,
                    unapplied,
                    ..
                } => Ok(Signing::Rejected {
                    prescription: None,
                    unapplied,
                }),
                Outcome::Ambiguous { .. } => {
                    Err(ClientError::protocol("a signature answered an ambiguity"))
                }
            },
        )
        .await
    }

    /// Signs several prescriptions (`(id, content hash)` each), one call each, at
    /// most `in_flight` at once ([`SIGNING_IN_FLIGHT`] unless you measured
    /// otherwise); a slow answer holds back no other signature. The answers
    /// come back in the input's order, and one failure stops nothing.
    pub async fn sign_prescriptions(
        &self,
        items: &[(String, String)],
        in_flight: usize,
    ) -> Vec<Result<Signing, ClientError>> {
        let mut answers: Vec<(usize, Result<Signing, ClientError>)> =
            futures::stream::iter(items.iter().enumerate())
                .map(|(n, (prescription_id, hash))| async move {
                    (n, self.sign_prescription(prescription_id, hash).await)
                })
                .buffer_unordered(in_flight.max(1))
                .collect()
                .await;
        answers.sort_unstable_by_key(|(n, _)| *n);
        answers.into_iter().map(|(_, answer)| answer).collect()
    }

    // ---------- orders

    /// Get `{ id }`: the order with its patient, prescriptions and pharmacy.
    pub async fn get_order(
        &self,
        order_id: &str,
    ) -> Result<Outcome<Order, OrderCandidate>, ClientError> {
        let input = OrderInput {
            id: Some(id(order_id)),
            ..Default::default()
        };
        let operation = request(GetOrder::build, self.order_arguments(input));
        self.send("get_order", operation, READ, |d| {
            outcome::order_outcome(d.order)
        })
        .await
    }

    /// A draft order for the patient with these prescriptions. `key` is sent as
    /// its `externalId`: the network answers a repeat of it with the first
    /// order, so the call is retried, and sending it again with the same key
    /// never makes a second order. (With an `externalId` the network starts an
    /// order of its own for the key rather than continuing the patient's draft.)
    pub async fn draft_order(
        &self,
        patient_id: &str,
        prescription_ids: &[String],
        key: &IdempotencyKey,
    ) -> Result<Outcome<Order, OrderCandidate>, ClientError> {
        let input = OrderInput {
            external_id: Some(key.to_string()),
            patient: Some(PatientReferenceInput {
                id: Some(id(patient_id)),
            }),
            prescriptions: (!prescription_ids.is_empty()).then(|| OrderPrescriptionsPatch {
                add: Some(references(prescription_ids)),
                ..Default::default()
            }),
            ..Default::default()
        };
        let operation = request(DraftOrder::build, self.order_arguments(input));
        self.send("draft_order", operation, WRITE, |d| {
            outcome::order_outcome(d.order)
        })
        .await
    }

    /// Adds or removes prescriptions, chooses a pharmacy or leaves it to the patient.
    pub async fn update_order(
        &self,
        order_id: &str,
        changes: OrderChanges,
    ) -> Result<Outcome<Order, OrderCandidate>, ClientError> {
        let patch = (!changes.add.is_empty() || !changes.remove.is_empty()).then(|| {
            OrderPrescriptionsPatch {
                add: (!changes.add.is_empty()).then(|| references(&changes.add)),
                remove: (!changes.remove.is_empty()).then(|| references(&changes.remove)),
                none: None,
            }
        });
        let pharmacy = changes.pharmacy.map(|choice| match choice {
            Some(reference) => OrderPharmacyInput {
                pharmacy: Some(reference),
                none: None,
            },
            None => OrderPharmacyInput {
                pharmacy: None,
                none: Some(true),
            },
        });
        let input = OrderInput {
            id: Some(id(order_id)),
            prescriptions: patch,
            pharmacy,
            ..Default::default()
        };
        let operation = request(UpdateOrder::build, self.order_arguments(input));
        self.send("update_order", operation, WRITE, |d| {
            outcome::order_outcome(d.order)
        })
        .await
    }

    /// Send (`SUBMITTED`): refused through `unapplied` unless every prescription is
    /// signed and the patient takes texts. Retried: the network answers a
    /// repeat with the order as it is, sent once.
    pub async fn send_order(
        &self,
        order_id: &str,
    ) -> Result<Outcome<Order, OrderCandidate>, ClientError> {
        let input = OrderInput {
            id: Some(id(order_id)),
            state: Some(OrderState::Submitted),
            ..Default::default()
        };
        let operation = request(SendOrder::build, self.order_arguments(input));
        self.send("send_order", operation, WRITE, |d| {
            outcome::order_outcome(d.order)
        })
        .await
    }

    /// Cancel (only a sent order). Retried, like Send.
    pub async fn cancel_order(
        &self,
        order_id: &str,
    ) -> Result<Outcome<Order, OrderCandidate>, ClientError> {
        let input = OrderInput {
            id: Some(id(order_id)),
            state: Some(OrderState::Canceled),
            ..Default::default()
        };
        let operation = request(CancelOrder::build, self.order_arguments(input));
        self.send("cancel_order", operation, WRITE, |d| {
            outcome::order_outcome(d.order)
        })
        .await
    }

    /// Pharmacies that fit `reference`, through the order's pharmacy resolution:
    /// several come back as options (nothing saved); exactly one is set.
    pub async fn find_pharmacies(
        &self,
        order_id: &str,
        reference: PharmacyReferenceInput,
    ) -> Result<PharmacyMatches, ClientError> {
        let input = OrderInput {
            id: Some(id(order_id)),
            pharmacy: Some(OrderPharmacyInput {
                pharmacy: Some(reference),
                none: None,
            }),
            ..Default::default()
        };
        let operation = request(FindPharmacies::build, self.order_arguments(input));
        self.send("find_pharmacies", operation, WRITE, |d| {
            pharmacy_matches(outcome::order_outcome(d.order)?, "pharmacy", "an order")
        })
        .await
    }

    /// Pharmacies that fit `reference`, through the patient's
    /// `preferredPharmacy`: several come back as options (nothing saved);
    /// exactly one becomes the patient's preferred pharmacy. Retried as
    /// [`Network::update_patient`] (a pharmacy is set, not added).
    pub async fn find_preferred_pharmacy(
        &self,
        patient_id: &str,
        reference: PharmacyReferenceInput,
    ) -> Result<PharmacyMatches<Patient>, ClientError> {
        let input = PatientInput {
            id: Some(id(patient_id)),
            demographic: Some(PatientDemographicInput {
                preferred_pharmacy: Some(reference),
                ..Default::default()
            }),
            clinical: None,
        };
        let operation = request(FindPreferredPharmacy::build, self.patient_arguments(input));
        self.send("find_preferred_pharmacy", operation, WRITE, |d| {
            pharmacy_matches(
                outcome::patient_outcome(d.patient)?,
                "demographic.preferredPharmacy",
                "a patient",
            )
        })
        .await
    }
}

/// A pharmacy resolution's answer: the options of the ambiguous change on the
/// pharmacy (`key` and below), else the record when nothing was left unapplied,
/// else the network's reasons.
fn pharmacy_matches<R, C>(
    outcome: Outcome<R, C>,
    key: &str,
    record: &str,
) -> Result<PharmacyMatches<R>, ClientError> {
    Ok(match outcome {
        Outcome::Record {
            record, unapplied, ..
        } => match unapplied
            .iter()
            .find(|c| c.key.starts_with(key) && c.is_ambiguous())
        {
            Some(change) => PharmacyMatches::Options(change.choices()),
            None => match record {
                Some(r) if unapplied.is_empty() => PharmacyMatches::Chosen(Box::new(r)),
                _ => PharmacyMatches::Nothing(unapplied),
            },
        },
        Outcome::Ambiguous { .. } => {
            return Err(ClientError::protocol(format!(
                "a pharmacy search answered {record} ambiguity"
            )));
        }
    })
}

fn references(ids: &[String]) -> Vec<PrescriptionReferenceInput> {
    ids.iter()
        .map(|i| PrescriptionReferenceInput {
            id: Some(id(i)),
            external_id: None,
        })
        .collect()
}

fn candidate_of(patient: &Patient) -> PatientCandidate {
    let name = patient.demographic.as_ref().map(|d| &d.name);
    PatientCandidate {
        id: patient.id.clone(),
        first_name: name.and_then(|n| n.first.clone()).unwrap_or_default(),
        last_name: name.and_then(|n| n.last.clone()),
        date_of_birth: patient
            .demographic
            .as_ref()
            .and_then(|d| d.date_of_birth.clone()),
    }
}

// Patient data: `Debug` prints ids and states only.
crate::redacted_debug! {
    PatientSearch {  }
}

#[cfg(test)]
mod tests {
    use super::{PatientSearch, Repeat, patient_repeat};
    use crate::network::documents::{
        AllergiesPatch, AllergyReferenceInput, BenefitReferenceInput, BenefitsPatch,
        HumanNameInput, PatientClinicalInput, PatientDemographicInput, PatientInput,
        PrescriptionInput,
    };

    #[test]
    fn printing_a_patient_input_shows_no_patient_data() {
        let input = PatientInput {
            demographic: Some(PatientDemographicInput {
                name: Some(HumanNameInput {
                    first: Some("Rosa".into()),
                    last: Some("Delgado".into()),
                    ..Default::default()
                }),
                email: Some("rosa.delgado@example.org".into()),
                phone: Some("+16175550142".into()),
                ..Default::default()
            }),
            clinical: Some(PatientClinicalInput {
                allergies: Some(crate::network::documents::AllergiesPatch {
                    add: Some(vec![AllergyReferenceInput {
                        name: Some("Penicillins".into()),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        let search = PatientSearch {
            last: Some("Delgado".into()),
            ..Default::default()
        };
        let draft = PrescriptionInput {
            instructions: Some("One capsule three times daily".into()),
            ..Default::default()
        };

        let printed = format!("{input:?} {search:?} {draft:?}");

        for secret in [
            "Rosa",
            "Delgado",
            "rosa.delgado",
            "5550142",
            "Penicillins",
            "capsule",
        ] {
            assert!(!printed.contains(secret), "{secret} in {printed}");
        }
    }

    fn with_benefit() -> PatientInput {
        PatientInput {
            demographic: Some(PatientDemographicInput {
                benefits: Some(BenefitsPatch {
                    add: Some(vec![BenefitReferenceInput {
                        bin: Some("610014".into()),
                        member_id: Some("M1".into()),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn removing_an_allergy() -> PatientInput {
        PatientInput {
            clinical: Some(PatientClinicalInput {
                allergies: Some(AllergiesPatch {
                    remove: Some(vec![AllergyReferenceInput {
                        id: Some(cynic::Id::new("alg_1")),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn adding_an_allergy() -> PatientInput {
        PatientInput {
            clinical: Some(PatientClinicalInput {
                allergies: Some(AllergiesPatch {
                    add: Some(vec![AllergyReferenceInput {
                        name: Some("penicillin".into()),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_patient_write_that_sets_adds_or_removes_clinical_entries_may_repeat() {
        assert_eq!(patient_repeat(&PatientInput::default()), Repeat::Safe);
        assert_eq!(patient_repeat(&adding_an_allergy()), Repeat::Safe);
        assert_eq!(patient_repeat(&removing_an_allergy()), Repeat::Safe);
    }

    #[test]
    fn a_patient_write_that_adds_a_benefit_is_sent_once() {
        assert_eq!(patient_repeat(&with_benefit()), Repeat::Never);
    }
}
