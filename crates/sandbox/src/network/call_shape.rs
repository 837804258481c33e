//! Which call each upsert's input is, decided once: [`PatientCall`],
//! [`PrescriptionCall`] and [`OrderCall`], named as the client names the same
//! shapes (`GetPatient`, `SyncPatient`, `LookUpDrug`, `DraftPrescription`,
//! `SignPrescription`, `SendOrder`, …). Each is made by ONE exhaustive
//! destructure of its input (`From<…Input>`), so a field added to an input does
//! not compile until it is placed here: in the call's edit
//! ([`PatientEdit`], [`PrescriptionEdit`]) or [`OrderWrite`], whose own
//! exhaustive destructures (`is_empty`, the record modules' `apply_*`) then ask
//! for it again. Everything after the boundary — the permission model
//! (`access.rs`), read or write (`schema.rs`), the record modules' `run`, the
//! link layer's `Operation` — matches on these enums; nothing else looks at
//! which fields an input holds to decide what it is.
//!
//! A shape that is none of the documented ones keeps the answer it always had:
//! a prescription without an id, a patient or a look-up's treatment is a
//! [`PrescriptionCall::Draft`] that the record module refuses for its missing
//! patient; an order with no id is a [`OrderCall::Draft`] refused the same way.

use async_graphql::ID;

use super::types::{
    DiagnosesPatch, DiagnosisReferenceInput, DispenseInput, OrderInput, OrderPharmacyInput,
    OrderPrescriptionsPatch, OrderState, PatientClinicalInput, PatientDemographicInput,
    PatientInput, PatientReferenceInput, PrescriptionClinicalInput, PrescriptionInput,
    PrescriptionSigningDetailsInput, TreatmentReferenceInput,
};

/// What a patient Sync or Update sets.
#[derive(Clone, Default)]
pub struct PatientEdit {
    pub demographic: Option<PatientDemographicInput>,
    pub clinical: Option<PatientClinicalInput>,
}

impl PatientEdit {
    /// Nothing to set: with an id, the call is a Get.
    pub fn is_empty(&self) -> bool {
        let Self {
            demographic,
            clinical,
        } = self;
        demographic.is_none() && clinical.is_none()
    }
}

/// One `patient` call.
#[derive(Clone)]
pub enum PatientCall {
    /// `{ id }` and nothing else: it only reads.
    Get { id: ID },
    /// No id: match the patient on file, add a new one, or offer candidates
    /// (the client's `SyncPatient` and `FindPatients`).
    Sync(PatientEdit),
    /// `{ id, … }`: change the patient `id`.
    Update { id: ID, edit: PatientEdit },
}

impl From<PatientInput> for PatientCall {
    fn from(input: PatientInput) -> Self {
        let PatientInput {
            id,
            demographic,
            clinical,
        } = input;
        let edit = PatientEdit {
            demographic,
            clinical,
        };
        match id {
            Some(id) if edit.is_empty() => Self::Get { id },
            Some(id) => Self::Update { id, edit },
            None => Self::Sync(edit),
        }
    }
}

/// What a prescription draft or Update sets: the drug and its content.
#[derive(Clone, Default)]
pub struct PrescriptionEdit {
    pub template_id: Option<ID>,
    pub treatment: Option<TreatmentReferenceInput>,
    /// The sig.
    pub instructions: Option<String>,
    pub dispense: Option<DispenseInput>,
    pub clinical: Option<PrescriptionClinicalInput>,
}

impl PrescriptionEdit {
    /// Nothing to set.
    pub fn is_empty(&self) -> bool {
        let Self {
            template_id,
            treatment,
            instructions,
            dispense,
            clinical,
        } = self;
        template_id.is_none()
            && treatment.is_none()
            && instructions.is_none()
            && dispense.is_none()
            && clinical.is_none()
    }
}

/// One `prescription` call.
#[derive(Clone)]
pub enum PrescriptionCall {
    /// `{ id }` and nothing else: it only reads.
    Get { id: ID },
    /// A treatment without a patient or a template: every fitting drug, nothing
    /// created. (Instructions, dispense or clinical sent with it are not read.)
    LookUp {
        external_id: Option<String>,
        treatment: TreatmentReferenceInput,
    },
    /// `{ clinical: { diagnoses: { add } } }` and nothing else (no patient, id,
    /// externalId, template, treatment, sig, dispense or notes): every catalog
    /// diagnosis fitting each entry, as options; nothing created. The drug
    /// look-up's rule ("a sync without a patient never creates anything")
    /// applied to the diagnoses a prescription carries.
    LookUpDiagnoses {
        entries: Vec<DiagnosisReferenceInput>,
    },
    /// No id, no signing: a new draft, or the draft in progress continued
    /// (refused when it names no patient).
    Draft {
        external_id: Option<String>,
        patient: Option<PatientReferenceInput>,
        edit: PrescriptionEdit,
    },
    /// `{ id, … }` without signing: change the draft `id`.
    Update {
        id: ID,
        external_id: Option<String>,
        patient: Option<PatientReferenceInput>,
        edit: PrescriptionEdit,
    },
    /// `signing` present. `alone` is false when anything but the id came with
    /// it (then it is refused: a signature is sent alone).
    Sign {
        id: Option<ID>,
        signing: PrescriptionSigningDetailsInput,
        alone: bool,
    },
}

impl From<PrescriptionInput> for PrescriptionCall {
    fn from(input: PrescriptionInput) -> Self {
        let PrescriptionInput {
            id,
            external_id,
            patient,
            template_id,
            treatment,
            instructions,
            dispense,
            clinical,
            signing,
        } = input;
        let edit = PrescriptionEdit {
            template_id,
            treatment,
            instructions,
            dispense,
            clinical,
        };
        let nothing_else = external_id.is_none() && patient.is_none() && edit.is_empty();
        match (signing, id, patient) {
            (Some(signing), id, _) => Self::Sign {
                id,
                signing,
                alone: nothing_else,
            },
            (None, Some(id), _) if nothing_else => Self::Get { id },
            (None, Some(id), patient) => Self::Update {
                id,
                external_id,
                patient,
                edit,
            },
            (None, None, None) => match edit {
                PrescriptionEdit {
                    template_id: None,
                    treatment: Some(treatment),
                    ..
                } => Self::LookUp {
                    external_id,
                    treatment,
                },
                PrescriptionEdit {
                    template_id: None,
                    treatment: None,
                    instructions: None,
                    dispense: None,
                    clinical:
                        Some(PrescriptionClinicalInput {
                            diagnoses:
                                Some(DiagnosesPatch {
                                    add: Some(entries),
                                    remove: None,
                                    none: None,
                                }),
                            notes: None,
                        }),
                } if external_id.is_none() && !entries.is_empty() => {
                    Self::LookUpDiagnoses { entries }
                }
                edit => Self::Draft {
                    external_id,
                    patient: None,
                    edit,
                },
            },
            (None, None, patient) => Self::Draft {
                external_id,
                patient,
                edit,
            },
        }
    }
}

/// Everything an order write carries; which write it is, is its
/// [`OrderCall`] variant.
#[derive(Clone, Default)]
pub struct OrderWrite {
    /// The order changed; `None` for a Sync (the patient's draft order, or a
    /// new one).
    pub id: Option<ID>,
    pub external_id: Option<String>,
    pub patient: Option<PatientReferenceInput>,
    pub prescriptions: Option<OrderPrescriptionsPatch>,
    pub pharmacy: Option<OrderPharmacyInput>,
    pub state: Option<OrderState>,
}

/// One `order` call.
#[derive(Clone)]
pub enum OrderCall {
    /// `{ id }` and nothing else: it only reads.
    Get { id: ID },
    /// No id, not sent or canceled: the patient's draft order (or a new one).
    Draft(OrderWrite),
    /// `{ id, … }`, not sent or canceled: prescriptions or the pharmacy
    /// changed (a pharmacy search too: the client's `FindPharmacies`).
    Update(OrderWrite),
    /// `state: SUBMITTED`.
    Send(OrderWrite),
    /// `state: CANCELED`.
    Cancel(OrderWrite),
}

impl From<OrderInput> for OrderCall {
    fn from(input: OrderInput) -> Self {
        let OrderInput {
            id,
            external_id,
            patient,
            prescriptions,
            pharmacy,
            state,
        } = input;
        let write = OrderWrite {
            id,
            external_id,
            patient,
            prescriptions,
            pharmacy,
            state,
        };
        match write.state {
            Some(OrderState::Submitted) => Self::Send(write),
            Some(OrderState::Canceled) => Self::Cancel(write),
            Some(OrderState::Draft) | None => match write {
                OrderWrite {
                    id: Some(id),
                    external_id: None,
                    patient: None,
                    prescriptions: None,
                    pharmacy: None,
                    state: None,
                } => Self::Get { id },
                OrderWrite { id: Some(_), .. } => Self::Update(write),
                OrderWrite { id: None, .. } => Self::Draft(write),
            },
        }
    }
}

/// Whether a call only reads (a Get) — what `schema.rs` runs as a read.
pub trait Reads {
    fn only_reads(&self) -> bool;
}

impl Reads for PatientCall {
    fn only_reads(&self) -> bool {
        match self {
            Self::Get { .. } => true,
            Self::Sync(_) | Self::Update { .. } => false,
        }
    }
}

impl Reads for PrescriptionCall {
    fn only_reads(&self) -> bool {
        match self {
            Self::Get { .. } => true,
            Self::LookUp { .. }
            | Self::LookUpDiagnoses { .. }
            | Self::Draft { .. }
            | Self::Update { .. }
            | Self::Sign { .. } => false,
        }
    }
}

impl Reads for OrderCall {
    fn only_reads(&self) -> bool {
        match self {
            Self::Get { .. } => true,
            Self::Draft(_) | Self::Update(_) | Self::Send(_) | Self::Cancel(_) => false,
        }
    }
}

// The inputs carry patient data: `Debug` names the call only.
macro_rules! call_debug {
    ($($ty:ident { $($variant:ident),* })*) => {$(
        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(match self {
                    $(Self::$variant { .. } => concat!(stringify!($ty), "::", stringify!($variant)),)*
                })
            }
        }
    )*};
}

call_debug! {
    PatientCall { Get, Sync, Update }
    PrescriptionCall { Get, LookUp, LookUpDiagnoses, Draft, Update, Sign }
    OrderCall { Get, Draft, Update, Send, Cancel }
}

impl std::fmt::Debug for PatientEdit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PatientEdit")
    }
}

impl std::fmt::Debug for PrescriptionEdit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PrescriptionEdit")
    }
}

impl std::fmt::Debug for OrderWrite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderWrite")
            .field("id", &self.id)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::types::{DispenseInput, PharmacyReferenceInput, PrescriptionClinicalInput};

    fn id() -> Option<ID> {
        Some(ID::from("rec_1"))
    }

    fn patient_ref() -> Option<PatientReferenceInput> {
        Some(PatientReferenceInput {
            id: Some(ID::from("pat_1")),
            ..PatientReferenceInput::default()
        })
    }

    fn treatment() -> Option<TreatmentReferenceInput> {
        Some(TreatmentReferenceInput {
            name: Some("ibuprofen".to_owned()),
            ..TreatmentReferenceInput::default()
        })
    }

    fn signing() -> Option<PrescriptionSigningDetailsInput> {
        Some(PrescriptionSigningDetailsInput {
            signed_hash: Some("hash".to_owned()),
            message: None,
        })
    }

    fn notes() -> Option<PrescriptionClinicalInput> {
        Some(PrescriptionClinicalInput {
            notes: Some("note to the pharmacist".to_owned()),
            ..PrescriptionClinicalInput::default()
        })
    }

    fn rx(input: PrescriptionInput) -> PrescriptionCall {
        PrescriptionCall::from(input)
    }

    // Patient.

    #[test]
    fn a_patient_id_alone_is_a_get() {
        let call = PatientCall::from(PatientInput {
            id: id(),
            ..PatientInput::default()
        });
        assert!(matches!(call, PatientCall::Get { .. }), "{call:?}");
    }

    #[test]
    fn a_patient_without_id_is_a_sync() {
        let call = PatientCall::from(PatientInput {
            demographic: Some(PatientDemographicInput::default()),
            ..PatientInput::default()
        });
        assert!(matches!(call, PatientCall::Sync(_)), "{call:?}");
    }

    #[test]
    fn a_patient_id_with_any_field_is_an_update_not_a_get() {
        let demographic = PatientCall::from(PatientInput {
            id: id(),
            demographic: Some(PatientDemographicInput::default()),
            ..PatientInput::default()
        });
        let clinical = PatientCall::from(PatientInput {
            id: id(),
            clinical: Some(PatientClinicalInput::default()),
            ..PatientInput::default()
        });
        assert!(matches!(demographic, PatientCall::Update { .. }));
        assert!(matches!(clinical, PatientCall::Update { .. }));
    }

    // Prescription.

    #[test]
    fn a_prescription_id_alone_is_a_get() {
        let call = rx(PrescriptionInput {
            id: id(),
            ..PrescriptionInput::default()
        });
        assert!(matches!(call, PrescriptionCall::Get { .. }), "{call:?}");
    }

    #[test]
    fn a_treatment_without_patient_or_template_is_a_look_up() {
        let call = rx(PrescriptionInput {
            treatment: treatment(),
            ..PrescriptionInput::default()
        });
        assert!(matches!(call, PrescriptionCall::LookUp { .. }), "{call:?}");
    }

    fn diagnoses_add(name: &str) -> Option<PrescriptionClinicalInput> {
        Some(PrescriptionClinicalInput {
            diagnoses: Some(DiagnosesPatch {
                add: Some(vec![DiagnosisReferenceInput {
                    name: Some(name.to_owned()),
                    ..DiagnosisReferenceInput::default()
                }]),
                ..DiagnosesPatch::default()
            }),
            notes: None,
        })
    }

    #[test]
    fn diagnoses_to_add_alone_without_patient_are_a_diagnosis_look_up() {
        let call = rx(PrescriptionInput {
            clinical: diagnoses_add("diabetes"),
            ..PrescriptionInput::default()
        });
        assert!(
            matches!(call, PrescriptionCall::LookUpDiagnoses { .. }),
            "{call:?}"
        );
    }

    #[test]
    fn diagnoses_to_add_with_a_patient_are_a_draft_not_a_look_up() {
        let call = rx(PrescriptionInput {
            patient: patient_ref(),
            clinical: diagnoses_add("diabetes"),
            ..PrescriptionInput::default()
        });
        assert!(matches!(call, PrescriptionCall::Draft { .. }), "{call:?}");
    }

    #[test]
    fn a_patient_with_a_treatment_or_template_is_a_draft() {
        let treated = rx(PrescriptionInput {
            patient: patient_ref(),
            treatment: treatment(),
            ..PrescriptionInput::default()
        });
        let templated = rx(PrescriptionInput {
            patient: patient_ref(),
            template_id: Some(ID::from("tpl_1")),
            ..PrescriptionInput::default()
        });
        assert!(matches!(treated, PrescriptionCall::Draft { .. }));
        assert!(matches!(templated, PrescriptionCall::Draft { .. }));
    }

    #[test]
    fn a_prescription_with_neither_id_patient_nor_treatment_stays_a_draft_to_refuse() {
        let empty = rx(PrescriptionInput::default());
        let template_only = rx(PrescriptionInput {
            template_id: Some(ID::from("tpl_1")),
            treatment: treatment(),
            ..PrescriptionInput::default()
        });
        assert!(matches!(
            empty,
            PrescriptionCall::Draft { patient: None, .. }
        ));
        assert!(matches!(
            template_only,
            PrescriptionCall::Draft { patient: None, .. }
        ));
    }

    #[test]
    fn signing_is_a_sign_alone_or_not() {
        let alone = rx(PrescriptionInput {
            id: id(),
            signing: signing(),
            ..PrescriptionInput::default()
        });
        let with_a_change = rx(PrescriptionInput {
            id: id(),
            signing: signing(),
            instructions: Some("1 tab daily".to_owned()),
            ..PrescriptionInput::default()
        });
        assert!(matches!(alone, PrescriptionCall::Sign { alone: true, .. }));
        assert!(matches!(
            with_a_change,
            PrescriptionCall::Sign { alone: false, .. }
        ));
    }

    #[test]
    fn a_prescription_id_with_a_note_is_an_update_not_a_get() {
        let call = rx(PrescriptionInput {
            id: id(),
            clinical: notes(),
            ..PrescriptionInput::default()
        });
        assert!(matches!(call, PrescriptionCall::Update { .. }), "{call:?}");
    }

    #[test]
    fn a_prescription_id_with_any_other_field_is_an_update_not_a_get() {
        let edits = [
            PrescriptionInput {
                external_id: Some("key".to_owned()),
                ..PrescriptionInput::default()
            },
            PrescriptionInput {
                patient: patient_ref(),
                ..PrescriptionInput::default()
            },
            PrescriptionInput {
                template_id: Some(ID::from("tpl_1")),
                ..PrescriptionInput::default()
            },
            PrescriptionInput {
                treatment: treatment(),
                ..PrescriptionInput::default()
            },
            PrescriptionInput {
                instructions: Some("1 tab daily".to_owned()),
                ..PrescriptionInput::default()
            },
            PrescriptionInput {
                dispense: Some(DispenseInput::default()),
                ..PrescriptionInput::default()
            },
        ];
        for edit in edits {
            let call = rx(PrescriptionInput { id: id(), ..edit });
            assert!(matches!(call, PrescriptionCall::Update { .. }), "{call:?}");
        }
    }

    // Order.

    #[test]
    fn an_order_id_alone_is_a_get() {
        let call = OrderCall::from(OrderInput {
            id: id(),
            ..OrderInput::default()
        });
        assert!(matches!(call, OrderCall::Get { .. }), "{call:?}");
    }

    #[test]
    fn an_order_without_id_is_a_draft() {
        let call = OrderCall::from(OrderInput {
            patient: patient_ref(),
            ..OrderInput::default()
        });
        assert!(matches!(call, OrderCall::Draft(_)), "{call:?}");
    }

    #[test]
    fn an_order_id_with_any_field_is_an_update_not_a_get() {
        let edits = [
            OrderInput {
                external_id: Some("key".to_owned()),
                ..OrderInput::default()
            },
            OrderInput {
                patient: patient_ref(),
                ..OrderInput::default()
            },
            OrderInput {
                prescriptions: Some(OrderPrescriptionsPatch::default()),
                ..OrderInput::default()
            },
            OrderInput {
                pharmacy: Some(OrderPharmacyInput {
                    pharmacy: Some(PharmacyReferenceInput::default()),
                    none: None,
                }),
                ..OrderInput::default()
            },
            OrderInput {
                state: Some(OrderState::Draft),
                ..OrderInput::default()
            },
        ];
        for edit in edits {
            let call = OrderCall::from(OrderInput { id: id(), ..edit });
            assert!(matches!(call, OrderCall::Update(_)), "{call:?}");
        }
    }

    #[test]
    fn submitted_is_a_send_and_canceled_a_cancel_with_or_without_id() {
        for id in [id(), None] {
            let send = OrderCall::from(OrderInput {
                id: id.clone(),
                state: Some(OrderState::Submitted),
                ..OrderInput::default()
            });
            let cancel = OrderCall::from(OrderInput {
                id,
                state: Some(OrderState::Canceled),
                ..OrderInput::default()
            });
            assert!(matches!(send, OrderCall::Send(_)), "{send:?}");
            assert!(matches!(cancel, OrderCall::Cancel(_)), "{cancel:?}");
        }
    }

    #[test]
    fn only_a_get_only_reads() {
        assert!(
            PrescriptionCall::Get {
                id: ID::from("rx_1")
            }
            .only_reads()
        );
        assert!(!rx(PrescriptionInput::default()).only_reads());
        assert!(
            !PatientCall::from(PatientInput::default()).only_reads(),
            "a Sync may add a patient"
        );
        assert!(
            !OrderCall::from(OrderInput {
                id: id(),
                state: Some(OrderState::Submitted),
                ..OrderInput::default()
            })
            .only_reads()
        );
    }
}
