//! [`Network`]: one typed async fn per call shape of the Network API. Each builds
//! its input, fills `metadata` (source, client name and version, a request id for
//! support), sends the call shape's document through the shared transport and
//! decodes the answer into an [`Outcome`] or a [`ClientError`].
//!
//! Retries: network and server trouble, and an `UpstreamServiceError` marked
//! `retryable`, are retried with backoff only for Gets, look-ups and calls that
//! carry an `externalId` (the network returns the first record). A refusal is
//! never retried.

use cynic::{Id, MutationBuilder as _, QueryBuilder as _};
use futures::StreamExt as _;
use serde::de::DeserializeOwned;

use super::documents::*;
use super::outcome::{self, Choice, Outcome};
use crate::error::{ClientError, shape_error};
use crate::transport::{Retry, Transport, backoff};

/// How many times a safe call is tried after a retryable upstream failure.
const UPSTREAM_ATTEMPTS: u32 = 3;
/// How many signatures [`Network::sign_prescriptions`] keeps in flight by default.
pub const SIGNING_IN_FLIGHT: usize = 4;

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

/// The answer to a pharmacy search through an order.
#[derive(Debug, Clone)]
pub enum PharmacyMatches {
    /// Exactly one pharmacy fitted: the network set it on the order.
    Chosen(Box<Order>),
    /// Several fitted: choose one and send its id ([`Network::update_order`]).
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

    /// Sends `operation`, retrying a retryable upstream failure when `retry` allows.
    async fn send<Q: DeserializeOwned, V: serde::Serialize, T>(
        &self,
        name: &'static str,
        operation: cynic::Operation<Q, V>,
        retry: Retry,
        finish: impl Fn(Q) -> Result<T, ClientError>,
    ) -> Result<T, ClientError> {
        let body = serde_json::to_vec(&operation).map_err(|e| {
            ClientError::protocol(format!("cannot encode {name}: {}", shape_error(&e)))
        })?;
        let mut attempt = 1;
        loop {
            match self
                .transport
                .send::<Q, T>(name, body.clone(), retry, &finish)
                .await
            {
                Err(ClientError::Upstream {
                    retryable: true, ..
                }) if retry == Retry::Safe && attempt < UPSTREAM_ATTEMPTS => {
                    tokio::time::sleep(backoff(attempt)).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// `{ ping }`: tests the token; touches no records.
    pub async fn ping(&self) -> Result<String, ClientError> {
        self.send("ping", Ping::build(()), Retry::Safe, |data| {
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
        let operation = GetPatient::build(self.patient_arguments(input));
        self.send("get_patient", operation, Retry::Safe, |d| {
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
        let operation = FindPatients::build(self.patient_arguments(input));
        self.send("find_patients", operation, Retry::Safe, |d| {
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

    /// Sync: the network matches, updates, adds, or answers candidates.
    pub async fn sync_patient(
        &self,
        patient: PatientInput,
    ) -> Result<Outcome<Patient, PatientCandidate>, ClientError> {
        let input = PatientInput {
            id: None,
            ..patient
        };
        let operation = SyncPatient::build(self.patient_arguments(input));
        self.send("sync_patient", operation, Retry::Never, |d| {
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
        let operation = UpdatePatient::build(self.patient_arguments(input));
        self.send("update_patient", operation, Retry::Never, |d| {
            outcome::patient_outcome(d.patient)
        })
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
        let operation = LookUpDrug::build(self.prescription_arguments(input));
        self.send("look_up_drug", operation, Retry::Safe, |d| {
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

    /// A draft for `prescription.patient` from a treatment or a template (or the
    /// patient's draft in progress continued). Retried only with an `externalId`.
    pub async fn draft_prescription(
        &self,
        prescription: PrescriptionInput,
    ) -> Result<Outcome<Prescription, PrescriptionCandidate>, ClientError> {
        let retry = Retry::create(prescription.external_id.as_ref());
        let input = PrescriptionInput {
            id: None,
            signing: None,
            ..prescription
        };
        let operation = DraftPrescription::build(self.prescription_arguments(input));
        self.send("draft_prescription", operation, retry, |d| {
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
        let operation = UpdatePrescription::build(self.prescription_arguments(input));
        self.send("update_prescription", operation, Retry::Never, |d| {
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
        let operation = GetPrescription::build(self.prescription_arguments(input));
        self.send("get_prescription", operation, Retry::Safe, |d| {
            outcome::prescription_outcome(d.prescription)
        })
        .await
    }

    /// Signs exactly the content the prescriber reviewed: `content_hash` is the
    /// `signing.contentHash` that was shown. Never retried.
    pub async fn sign_prescription(
        &self,
        prescription_id: &str,
        content_hash: &str,
    ) -> Result<Signing, ClientError> {
        let input = PrescriptionInput {
            id: Some(id(prescription_id)),
            signing: Some(PrescriptionSigningDetailsInput {
                signed_hash: Some(content_hash.to_owned()),
                message: None,
            }),
            ..Default::default()
        };
        let operation = SignPrescription::build(self.prescription_arguments(input));
        self.send("sign_prescription", operation, Retry::Never, |d| {
            match outcome::prescription_outcome(d.prescription)? {
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
            }
        })
        .await
    }

    /// Signs several prescriptions, one call each, at most `in_flight` at once; the
    /// answers come back in the input's order, and one failure stops nothing.
    pub async fn sign_prescriptions(
        &self,
        items: &[(String, String)],
        in_flight: usize,
    ) -> Vec<Result<Signing, ClientError>> {
        futures::stream::iter(items)
            .map(|(prescription_id, hash)| self.sign_prescription(prescription_id, hash))
            .buffered(in_flight.max(1))
            .collect()
            .await
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
        let operation = GetOrder::build(self.order_arguments(input));
        self.send("get_order", operation, Retry::Safe, |d| {
            outcome::order_outcome(d.order)
        })
        .await
    }

    /// The patient's draft order with these prescriptions added, or a new one.
    /// Retried only with an `externalId`.
    pub async fn draft_order(
        &self,
        patient_id: &str,
        prescription_ids: &[String],
        external_id: Option<String>,
    ) -> Result<Outcome<Order, OrderCandidate>, ClientError> {
        let retry = Retry::create(external_id.as_ref());
        let input = OrderInput {
            external_id,
            patient: Some(PatientReferenceInput {
                id: Some(id(patient_id)),
            }),
            prescriptions: (!prescription_ids.is_empty()).then(|| OrderPrescriptionsPatch {
                add: Some(references(prescription_ids)),
                ..Default::default()
            }),
            ..Default::default()
        };
        let operation = DraftOrder::build(self.order_arguments(input));
        self.send("draft_order", operation, retry, |d| {
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
        let operation = UpdateOrder::build(self.order_arguments(input));
        self.send("update_order", operation, Retry::Never, |d| {
            outcome::order_outcome(d.order)
        })
        .await
    }

    /// Send (`SUBMITTED`): refused through `unapplied` unless every prescription is
    /// signed and the patient takes texts.
    pub async fn send_order(
        &self,
        order_id: &str,
    ) -> Result<Outcome<Order, OrderCandidate>, ClientError> {
        let input = OrderInput {
            id: Some(id(order_id)),
            state: Some(OrderState::Submitted),
            ..Default::default()
        };
        let operation = SendOrder::build(self.order_arguments(input));
        self.send("send_order", operation, Retry::Never, |d| {
            outcome::order_outcome(d.order)
        })
        .await
    }

    /// Cancel (only a sent order).
    pub async fn cancel_order(
        &self,
        order_id: &str,
    ) -> Result<Outcome<Order, OrderCandidate>, ClientError> {
        let input = OrderInput {
            id: Some(id(order_id)),
            state: Some(OrderState::Canceled),
            ..Default::default()
        };
        let operation = CancelOrder::build(self.order_arguments(input));
        self.send("cancel_order", operation, Retry::Never, |d| {
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
        let operation = FindPharmacies::build(self.order_arguments(input));
        self.send("find_pharmacies", operation, Retry::Never, |d| {
            Ok(match outcome::order_outcome(d.order)? {
                Outcome::Record {
                    record, unapplied, ..
                } => {
                    match unapplied
                        .iter()
                        .find(|c| c.key.starts_with("pharmacy") && c.is_ambiguous())
                    {
                        Some(change) => PharmacyMatches::Options(change.choices()),
                        None => match record {
                            Some(order) if unapplied.is_empty() => {
                                PharmacyMatches::Chosen(Box::new(order))
                            }
                            _ => PharmacyMatches::Nothing(unapplied),
                        },
                    }
                }
                Outcome::Ambiguous { .. } => {
                    return Err(ClientError::protocol(
                        "a pharmacy search answered an order ambiguity",
                    ));
                }
            })
        })
        .await
    }
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
    use super::PatientSearch;
    use crate::network::documents::{
        AllergyReferenceInput, HumanNameInput, PatientClinicalInput, PatientDemographicInput,
        PatientInput, PrescriptionInput,
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
}
