//! Both directions between `rxdesk-client`'s Network API types and the IPC
//! shapes the UI sees: records, changes and choices, sessions (who and what they
//! may do, never the token), errors — and the UI's forms turned into the
//! network's inputs. No decision is taken here; it only translates.

use rxdesk_client::network::documents as net;
use rxdesk_client::network::{Choice, Compatibility};
use rxdesk_client::{ClientError, Session, SignInError};

use crate::ipc::{
    AlertKind, AlertSeverity, AlertView, ChangeNote, ChangeSeverity, ChangeStatus, ChoiceView,
    ClinicalEdit, ClinicalEntry, CommandError, DispenseView, DraftForm, DraftStatus, DrugView,
    EntryInput, ExceptionView, FailingOperation, Fulfillment, MedicationEntry, MedicationStatus,
    NetworkCheck, OrderState, OrderView, PatientInput, PatientRecord, PatientSummary, PharmacyView,
    PrescriptionView, RecordKind, SessionInfo, Sex, SignInFailure, SigningState,
};
use crate::links::link;

impl From<ClientError> for CommandError {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::SignedOut { message, .. } => Self::SignedOut { message },
            ClientError::Refused {
                code,
                message,
                required_permission,
            } => Self::Refused {
                code,
                message,
                required_permission,
            },
            ClientError::Invalid {
                code,
                message,
                field,
            } => Self::Invalid {
                code,
                message,
                field,
            },
            ClientError::NotFound { message } => Self::NotFound { message },
            ClientError::Network { message } | ClientError::Untrusted { message } => {
                Self::Network { message }
            }
            ClientError::Server { message, .. } | ClientError::Upstream { message, .. } => {
                Self::Server { message }
            }
            ClientError::Protocol { message } => Self::Protocol { message },
        }
    }
}

/// Why sign-in failed, in the UI's terms, and the message to show.
pub fn sign_in_failure(e: &SignInError) -> (SignInFailure, String) {
    let reason = match e {
        SignInError::Denied { .. } => SignInFailure::AccessDenied,
        SignInError::TimedOut => SignInFailure::Timeout,
        SignInError::Cancelled => SignInFailure::Cancelled,
        SignInError::Client(ClientError::Network { .. } | ClientError::Untrusted { .. }) => {
            SignInFailure::Network
        }
        SignInError::Authorization { .. }
        | SignInError::Listener { .. }
        | SignInError::Client(_) => SignInFailure::Other,
    };
    (reason, e.to_string())
}

/// What the UI may know about a session.
pub fn session_info(environment_id: &str, session: &Session) -> SessionInfo {
    let expires = time::OffsetDateTime::from(session.expires_at());
    SessionInfo {
        environment_id: environment_id.to_owned(),
        user_name: session.user().name.clone(),
        user_email: session.user().email.clone().unwrap_or_default(),
        role: session.user().role.clone().unwrap_or_default(),
        organization_id: session.organization().id.clone(),
        organization_name: session.organization().name.clone(),
        permissions: session.permissions().to_vec(),
        expires_at: expires
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
    }
}

/// The compatibility check's verdict, in the UI's terms.
pub fn network_check(report: &Compatibility) -> NetworkCheck {
    if report.works() {
        return NetworkCheck::Compatible;
    }
    NetworkCheck::Incompatible {
        failing: report
            .failing()
            .map(|o| FailingOperation {
                operation: o.operation.clone(),
                problems: o
                    .problem
                    .iter()
                    .flat_map(|p| p.lines())
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned)
                    .collect(),
            })
            .collect(),
    }
}

// ---- the vocabulary ------------------------------------------------------------------

pub fn sex(s: net::Sex) -> Sex {
    match s {
        net::Sex::Female => Sex::Female,
        net::Sex::Male => Sex::Male,
        net::Sex::Unknown => Sex::Unknown,
    }
}

fn net_sex(s: Sex) -> net::Sex {
    match s {
        Sex::Female => net::Sex::Female,
        Sex::Male => net::Sex::Male,
        Sex::Unknown => net::Sex::Unknown,
    }
}

fn medication_status(s: net::MedicationHistoryStatus) -> MedicationStatus {
    match s {
        net::MedicationHistoryStatus::Active => MedicationStatus::Active,
        net::MedicationHistoryStatus::Historical => MedicationStatus::Historical,
        net::MedicationHistoryStatus::Unknown => MedicationStatus::Unknown,
    }
}

fn net_medication_status(s: MedicationStatus) -> net::MedicationHistoryStatus {
    match s {
        MedicationStatus::Active => net::MedicationHistoryStatus::Active,
        MedicationStatus::Historical => net::MedicationHistoryStatus::Historical,
        MedicationStatus::Unknown => net::MedicationHistoryStatus::Unknown,
    }
}

fn draft_status(s: net::DraftStatus) -> DraftStatus {
    match s {
        net::DraftStatus::Ready => DraftStatus::Ready,
        net::DraftStatus::Warning => DraftStatus::Warning,
        net::DraftStatus::Blocked => DraftStatus::Blocked,
    }
}

fn signing_state(s: net::PrescriptionSigningState) -> SigningState {
    match s {
        net::PrescriptionSigningState::Unsigned => SigningState::Unsigned,
        net::PrescriptionSigningState::Signed => SigningState::Signed,
        net::PrescriptionSigningState::InvalidatedSign => SigningState::InvalidatedSign,
    }
}

fn alert_severity(s: net::ScreeningSeverity) -> AlertSeverity {
    match s {
        net::ScreeningSeverity::Minor => AlertSeverity::Minor,
        net::ScreeningSeverity::Moderate => AlertSeverity::Moderate,
        net::ScreeningSeverity::Major => AlertSeverity::Major,
    }
}

fn alert_kind(k: net::ScreeningAlertType) -> AlertKind {
    match k {
        net::ScreeningAlertType::Drug => AlertKind::Drug,
        net::ScreeningAlertType::Allergen => AlertKind::Allergen,
        net::ScreeningAlertType::Condition => AlertKind::Condition,
    }
}

fn order_state(s: net::OrderState) -> OrderState {
    match s {
        net::OrderState::Draft => OrderState::Draft,
        net::OrderState::Submitted => OrderState::Submitted,
        net::OrderState::Canceled => OrderState::Canceled,
    }
}

fn fulfillment(f: net::FulfillmentType) -> Fulfillment {
    match f {
        net::FulfillmentType::PickUp => Fulfillment::PickUp,
        net::FulfillmentType::MailOrder => Fulfillment::MailOrder,
    }
}

pub fn net_fulfillment(f: Fulfillment) -> net::FulfillmentType {
    match f {
        Fulfillment::PickUp => net::FulfillmentType::PickUp,
        Fulfillment::MailOrder => net::FulfillmentType::MailOrder,
    }
}

// ---- changes and choices -------------------------------------------------------------

fn offer_words(offer: &net::PharmacyOffer) -> String {
    let mut words = vec![offer.source.clone()];
    if offer.is_promoted {
        words.push("promoted".to_owned());
    }
    words.extend(offer.attribute_tags.iter().map(|t| t.label.clone()));
    words.extend(
        offer
            .prescription_delivery_estimates
            .iter()
            .map(|e| e.delivery_promise.clone()),
    );
    words.join(" · ")
}

pub fn choice_view(choice: &Choice) -> ChoiceView {
    ChoiceView {
        label: choice.display_name.clone(),
        reason: choice.reason.clone(),
        argument: choice.argument.clone(),
        value: choice.value.clone(),
        exact: choice.exact,
        offers: choice.offers.iter().map(offer_words).collect(),
    }
}

pub fn change_note(change: &net::Change) -> ChangeNote {
    ChangeNote {
        key: change.key.clone(),
        label: change.label.clone(),
        status: match change.status {
            net::ChangeStatus::Applied => ChangeStatus::Applied,
            net::ChangeStatus::Rejected => ChangeStatus::Rejected,
            net::ChangeStatus::Ambiguous => ChangeStatus::Ambiguous,
        },
        severity: match change.severity {
            net::ChangeSeverity::Info => ChangeSeverity::Info,
            net::ChangeSeverity::Advisory => ChangeSeverity::Advisory,
            net::ChangeSeverity::Blocking => ChangeSeverity::Blocking,
        },
        reason: change.reason.clone(),
        options: change.choices().iter().map(choice_view).collect(),
    }
}

pub fn change_notes(changes: &[net::Change]) -> Vec<ChangeNote> {
    changes.iter().map(change_note).collect()
}

// ---- records -------------------------------------------------------------------------

fn full_name(first: &str, middle: Option<&str>, last: &str) -> String {
    [Some(first), middle, Some(last)]
        .into_iter()
        .flatten()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn patient_record(p: net::Patient) -> PatientRecord {
    let id = p.id.into_inner();
    let d = p.demographic;
    let name = d.as_ref().map(|d| d.name.clone());
    let first = name
        .as_ref()
        .and_then(|n| n.first.clone())
        .unwrap_or_default();
    let middle = name.as_ref().and_then(|n| n.middle.clone());
    let last = name
        .as_ref()
        .and_then(|n| n.last.clone())
        .unwrap_or_default();
    let clinical = p.clinical;
    PatientRecord {
        link: link(RecordKind::Patient, &id),
        full_name: full_name(&first, middle.as_deref(), &last),
        id,
        first_name: first,
        middle_name: middle,
        last_name: last,
        date_of_birth: d
            .as_ref()
            .and_then(|d| d.date_of_birth.clone())
            .map(|d| d.0),
        sex: d.as_ref().and_then(|d| d.sex).map(sex),
        email: d.as_ref().and_then(|d| d.email.clone()),
        phone: d.as_ref().and_then(|d| d.phone.clone()),
        allergies: clinical
            .iter()
            .flat_map(|c| &c.allergies)
            .map(|a| ClinicalEntry {
                id: a.id.inner().to_owned(),
                name: a.name.clone(),
                code: a.rx_norm_id.clone(),
            })
            .collect(),
        medications: clinical
            .iter()
            .flat_map(|c| &c.medications)
            .map(|m| MedicationEntry {
                id: m.id.inner().to_owned(),
                name: m.name.clone(),
                code: m.rx_norm_id.clone(),
                status: medication_status(m.status),
            })
            .collect(),
        diagnoses: clinical
            .iter()
            .flat_map(|c| &c.diagnoses)
            .map(diagnosis)
            .collect(),
    }
}

fn diagnosis(d: &net::Diagnosis) -> ClinicalEntry {
    ClinicalEntry {
        id: d.id.inner().to_owned(),
        name: d
            .name
            .clone()
            .or_else(|| d.icd10_code.clone())
            .unwrap_or_default(),
        code: d.icd10_code.clone(),
    }
}

pub fn patient_summary(record: &PatientRecord) -> PatientSummary {
    PatientSummary {
        id: record.id.clone(),
        name: record.full_name.clone(),
        date_of_birth: record.date_of_birth.clone(),
    }
}

pub fn candidate_summary(c: &net::PatientCandidate) -> PatientSummary {
    PatientSummary {
        id: c.id.inner().to_owned(),
        name: full_name(
            &c.first_name,
            None,
            c.last_name.as_deref().unwrap_or_default(),
        ),
        date_of_birth: c.date_of_birth.clone().map(|d| d.0),
    }
}

pub fn prescription_view(p: net::Prescription) -> PrescriptionView {
    let id = p.id.into_inner();
    let dispense = p.dispense.unwrap_or_default();
    PrescriptionView {
        link: link(RecordKind::Prescription, &id),
        id,
        patient_id: p.patient.map(|r| r.id.into_inner()),
        status: p.status.map(draft_status),
        signing: signing_state(p.signing.state),
        content_hash: p.signing.content_hash,
        signed_at: p.signing.signed_at.map(|d| d.0),
        template_id: p.template_id.map(cynic::Id::into_inner),
        drug: DrugView {
            id: p.treatment.id.into_inner(),
            name: p.treatment.name,
            rx_norm_id: p.treatment.rx_norm_id,
        },
        instructions: p.instructions,
        dispense: DispenseView {
            quantity: dispense.quantity,
            unit: dispense.unit,
            days_supply: dispense.days_supply,
            refills: dispense.refills_allowed,
            dispense_as_written: dispense.dispense_as_written,
        },
        diagnoses: p
            .clinical
            .iter()
            .flat_map(|c| &c.diagnoses)
            .map(diagnosis)
            .collect(),
        alerts: p
            .screening_alerts
            .unwrap_or_default()
            .iter()
            .map(|a| AlertView {
                severity: alert_severity(a.severity),
                kind: alert_kind(a.kind),
                description: a.description.clone(),
                involved: a.involved_entities.iter().map(|e| e.name.clone()).collect(),
                alternatives: a
                    .options
                    .iter()
                    .flatten()
                    .map(|o| choice_view(&Choice::from(o)))
                    .collect(),
            })
            .collect(),
    }
}

fn address_words(a: &net::PharmacyAddress) -> String {
    [&a.street1, &a.street2, &a.city, &a.state, &a.postal_code]
        .into_iter()
        .flatten()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn pharmacy_view(p: net::Pharmacy) -> PharmacyView {
    PharmacyView {
        id: p.id.into_inner(),
        address: p.address.as_ref().map(address_words).unwrap_or_default(),
        name: p.name,
        fulfillment: p
            .fulfillment_type
            .unwrap_or_default()
            .into_iter()
            .map(fulfillment)
            .collect(),
    }
}

pub fn order_view(o: net::Order) -> OrderView {
    let id = o.id.into_inner();
    let patient = match o.patient {
        Some(net::PatientRecordResult::Patient(p)) => Some(patient_record(p)),
        _ => None,
    };
    OrderView {
        link: link(RecordKind::Order, &id),
        id,
        state: order_state(o.state),
        patient_id: patient.as_ref().map(|p| p.id.clone()),
        patient_name: patient.map(|p| p.full_name),
        prescriptions: o.prescriptions.into_iter().map(prescription_view).collect(),
        pharmacy: o.pharmacy.map(pharmacy_view),
        exceptions: o
            .exceptions
            .into_iter()
            .map(|e| ExceptionView {
                kind: format!("{:?}", e.kind),
                message: e.message,
                created_at: e.created_at.0,
            })
            .collect(),
    }
}

// ---- forms → inputs ------------------------------------------------------------------

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

/// Every text of the patient form, checked.
pub fn check_patient_input(input: &PatientInput) -> Result<(), CommandError> {
    plain_text("firstName", "First name", &input.first_name)?;
    plain_text("lastName", "Last name", &input.last_name)?;
    plain_text("dateOfBirth", "Date of birth", &input.date_of_birth)?;
    plain_text("email", "Email", input.email.as_deref().unwrap_or_default())?;
    plain_text("phone", "Phone", input.phone.as_deref().unwrap_or_default())
}

/// Every name typed into a clinical edit, checked.
pub fn check_clinical_edit(edit: &ClinicalEdit) -> Result<(), CommandError> {
    for (entries, field, label) in [
        (&edit.add_allergies, "allergy", "The allergy"),
        (&edit.add_medications, "medication", "The medication"),
        (&edit.add_diagnoses, "diagnosis", "The diagnosis"),
    ] {
        for entry in entries {
            plain_text(field, label, entry.name.as_deref().unwrap_or_default())?;
        }
    }
    Ok(())
}

/// Every text of the draft form, checked.
pub fn check_draft_form(form: &DraftForm) -> Result<(), CommandError> {
    plain_text(
        "instructions",
        "Instructions",
        form.instructions.as_deref().unwrap_or_default(),
    )?;
    plain_text("unit", "Unit", form.unit.as_deref().unwrap_or_default())?;
    plain_text(
        "templateId",
        "Template id",
        form.template_id.as_deref().unwrap_or_default(),
    )
}

/// The text without surrounding blanks; `None` when nothing is left.
pub(crate) fn trimmed(value: Option<&str>) -> Option<String> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// The patient form as the network's demographics: every field sent as typed
/// (trimmed), so a blank required field comes back named by the network.
pub fn demographic_input(input: &PatientInput) -> net::PatientDemographicInput {
    net::PatientDemographicInput {
        name: Some(net::HumanNameInput {
            first: Some(input.first_name.trim().to_owned()),
            last: Some(input.last_name.trim().to_owned()),
            ..Default::default()
        }),
        date_of_birth: trimmed(Some(&input.date_of_birth)).map(net::Date),
        sex: input.sex.map(net_sex),
        email: trimmed(input.email.as_deref()),
        phone: trimmed(input.phone.as_deref()),
        ..Default::default()
    }
}

fn id(value: &str) -> cynic::Id {
    cynic::Id::new(value)
}

fn some_vec<T>(v: Vec<T>) -> Option<Vec<T>> {
    (!v.is_empty()).then_some(v)
}

/// The clinical edit as the network's patches (lists left alone when untouched).
pub fn clinical_input(edit: &ClinicalEdit) -> net::PatientClinicalInput {
    let allergies_add: Vec<_> = edit
        .add_allergies
        .iter()
        .map(|e| net::AllergyReferenceInput {
            id: e.id.as_deref().map(id),
            name: entry_name(e),
            ..Default::default()
        })
        .collect();
    let allergies_remove: Vec<_> = edit
        .remove_allergies
        .iter()
        .map(|i| net::AllergyReferenceInput {
            id: Some(id(i)),
            ..Default::default()
        })
        .collect();
    let allergies = if edit.no_known_allergies {
        Some(net::AllergiesPatch {
            none: Some(true),
            ..Default::default()
        })
    } else if allergies_add.is_empty() && allergies_remove.is_empty() {
        None
    } else {
        Some(net::AllergiesPatch {
            add: some_vec(allergies_add),
            remove: some_vec(allergies_remove),
            none: None,
        })
    };
    let medications_add: Vec<_> = edit
        .add_medications
        .iter()
        .map(|e| net::MedicationReferenceInput {
            id: e.id.as_deref().map(id),
            name: entry_name(e),
            status: e.status.map(net_medication_status),
            ..Default::default()
        })
        .collect();
    let medications_remove: Vec<_> = edit
        .remove_medications
        .iter()
        .map(|i| net::MedicationReferenceInput {
            id: Some(id(i)),
            ..Default::default()
        })
        .collect();
    let medications = (!medications_add.is_empty() || !medications_remove.is_empty()).then(|| {
        net::MedicationsPatch {
            add: some_vec(medications_add),
            remove: some_vec(medications_remove),
            ..Default::default()
        }
    });
    let diagnoses_add: Vec<_> = edit
        .add_diagnoses
        .iter()
        .map(|e| net::DiagnosisReferenceInput {
            id: e.id.as_deref().map(id),
            name: entry_name(e),
            ..Default::default()
        })
        .collect();
    let diagnoses_remove: Vec<_> = edit
        .remove_diagnoses
        .iter()
        .map(|i| net::DiagnosisReferenceInput {
            id: Some(id(i)),
            ..Default::default()
        })
        .collect();
    let diagnoses =
        (!diagnoses_add.is_empty() || !diagnoses_remove.is_empty()).then(|| net::DiagnosesPatch {
            add: some_vec(diagnoses_add),
            remove: some_vec(diagnoses_remove),
            none: None,
        });
    net::PatientClinicalInput {
        allergies,
        medications,
        diagnoses,
        notes: None,
    }
}

/// A name only when no id was chosen (an entry names itself one way).
fn entry_name(e: &EntryInput) -> Option<String> {
    if e.id.is_some() {
        None
    } else {
        trimmed(e.name.as_deref())
    }
}

/// The draft form as the network's prescription input (fields left empty are
/// not sent; the patient only on a new draft).
pub fn prescription_input(patient_id: Option<&str>, form: &DraftForm) -> net::PrescriptionInput {
    let dispense = net::DispenseInput {
        quantity: form.quantity,
        unit: trimmed(form.unit.as_deref()),
        days_supply: form.days_supply,
        refills_allowed: form.refills,
        dispense_as_written: None,
    };
    let has_dispense = dispense.quantity.is_some()
        || dispense.unit.is_some()
        || dispense.days_supply.is_some()
        || dispense.refills_allowed.is_some();
    net::PrescriptionInput {
        patient: patient_id.map(|p| net::PatientReferenceInput { id: Some(id(p)) }),
        template_id: trimmed(form.template_id.as_deref()).map(|t| id(&t)),
        treatment: trimmed(form.drug_id.as_deref()).map(|d| net::TreatmentReferenceInput {
            id: Some(id(&d)),
            ..Default::default()
        }),
        instructions: trimmed(form.instructions.as_deref()),
        dispense: has_dispense.then_some(dispense),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_right_to_left_override_in_a_name_is_refused_naming_the_field() {
        let input = PatientInput {
            first_name: "Ros\u{202E}a".into(),
            last_name: "Delgado".into(),
            date_of_birth: "1988-04-17".into(),
            sex: None,
            email: None,
            phone: None,
        };

        let refused = check_patient_input(&input);

        assert!(matches!(
            refused,
            Err(CommandError::Invalid { ref field, ref message, .. })
                if field.as_deref() == Some("firstName") && message.starts_with("First name")
        ));
    }

    #[test]
    fn control_characters_in_a_sig_are_refused_but_line_breaks_are_not() {
        let sig = |s: &str| DraftForm {
            instructions: Some(s.into()),
            ..Default::default()
        };

        assert!(check_draft_form(&sig("Take one\ntablet daily")).is_ok());
        assert!(check_draft_form(&sig("Take one\u{0007} tablet")).is_err());
        assert!(check_draft_form(&sig("Take \u{2067}one\u{2069} tablet")).is_err());
    }

    #[test]
    fn an_untouched_clinical_list_is_not_sent() {
        let edit = ClinicalEdit {
            add_allergies: vec![EntryInput {
                name: Some(" Penicillin ".into()),
                id: None,
                status: None,
            }],
            ..Default::default()
        };
        let input = clinical_input(&edit);
        assert!(input.medications.is_none() && input.diagnoses.is_none());
        let add = input.allergies.and_then(|a| a.add).unwrap_or_default();
        assert_eq!(add.len(), 1);
        assert_eq!(add[0].name.as_deref(), Some("Penicillin"));
    }

    #[test]
    fn a_chosen_option_sends_the_id_and_not_the_name() {
        let edit = ClinicalEdit {
            add_diagnoses: vec![EntryInput {
                name: Some("hypertension".into()),
                id: Some("dx_i10".into()),
                status: None,
            }],
            ..Default::default()
        };
        let add = clinical_input(&edit)
            .diagnoses
            .and_then(|d| d.add)
            .unwrap_or_default();
        assert_eq!(add[0].id.as_ref().map(cynic::Id::inner), Some("dx_i10"));
        assert!(add[0].name.is_none());
    }

    #[test]
    fn no_known_allergies_is_sent_as_none_alone() {
        let edit = ClinicalEdit {
            no_known_allergies: true,
            ..Default::default()
        };
        let allergies = clinical_input(&edit).allergies.unwrap_or_default();
        assert_eq!(allergies.none, Some(true));
        assert!(allergies.add.is_none() && allergies.remove.is_none());
    }

    #[test]
    fn empty_draft_fields_are_not_sent() {
        let input = prescription_input(
            Some("pat_1"),
            &DraftForm {
                drug_id: Some("med_1".into()),
                instructions: Some("  ".into()),
                ..Default::default()
            },
        );
        assert!(input.instructions.is_none() && input.dispense.is_none());
        assert!(input.treatment.is_some() && input.patient.is_some());
    }
}
