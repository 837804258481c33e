//! What a Network API call answers, decoded: [`Outcome`] (the record with its
//! applied and unapplied changes, or an ambiguity with candidates), refusals and
//! upstream failures as [`ClientError`], the options of a change as
//! [`Choice`]s, the auto-pick rule, and [`AnswerOption`]: putting a chosen
//! option back into the input it came from.

use super::documents::{
    Change, ChangeOption, ChangeSeverity, ChangeStatus, EntityMatchType, MatchReasonType, Order,
    OrderCandidate, OrderInput, OrderPharmacyInput, OrderResult, Patient, PatientCandidate,
    PatientInput, PatientRecordResult, PatientResult, PharmacyOffer, PharmacyReferenceInput,
    Prescription, PrescriptionCandidate, PrescriptionInput, PrescriptionResult,
    TreatmentReferenceInput, UnauthorizedError, UpstreamServiceError,
};
use crate::error::ClientError;

/// The answer of a call that ran.
#[derive(Debug, Clone)]
pub enum Outcome<T, C> {
    /// The record (when saved or read; `None` when nothing was) and what happened
    /// to each input.
    Record {
        record: Option<T>,
        applied: Vec<Change>,
        unapplied: Vec<Change>,
    },
    /// Several existing records could be meant; nothing was saved. Send again with
    /// one candidate's id — a person chooses, never the client.
    Ambiguous { reason: String, candidates: Vec<C> },
}

impl<T, C> Outcome<T, C> {
    /// The record, when there is one.
    pub fn record(&self) -> Option<&T> {
        match self {
            Self::Record { record, .. } => record.as_ref(),
            Self::Ambiguous { .. } => None,
        }
    }

    /// The record, when there is one.
    pub fn into_record(self) -> Option<T> {
        match self {
            Self::Record { record, .. } => record,
            Self::Ambiguous { .. } => None,
        }
    }

    /// The inputs that were not saved (empty for an ambiguity).
    pub fn unapplied(&self) -> &[Change] {
        match self {
            Self::Record { unapplied, .. } => unapplied,
            Self::Ambiguous { .. } => &[],
        }
    }

    /// True when an input blocked the call (so nothing was saved).
    pub fn is_blocked(&self) -> bool {
        self.unapplied()
            .iter()
            .any(|c| c.severity == ChangeSeverity::Blocking)
    }
}

/// One way to answer a change, whatever kind of option the network sent.
#[derive(Debug, Clone)]
pub struct Choice {
    pub display_name: String,
    pub reason: Option<String>,
    /// The mutation whose input the option answers (`patient`, `prescription`, `order`).
    pub operation: String,
    /// Where `value` goes in that input, e.g. `treatment.id`.
    pub argument: Option<String>,
    pub value: Option<String>,
    /// True when the network says it matched exactly (name or RxNorm code).
    pub exact: bool,
    /// Pharmacy options carry offers.
    pub offers: Vec<PharmacyOffer>,
}

const EXACT_TYPES: [EntityMatchType; 2] = [
    EntityMatchType::ExactNameMatch,
    EntityMatchType::RxnormCodeMatch,
];
const EXACT_REASONS: [MatchReasonType; 2] = [
    MatchReasonType::ExactNameMatch,
    MatchReasonType::RxnormCodeMatch,
];

impl From<&ChangeOption> for Choice {
    fn from(option: &ChangeOption) -> Self {
        match option {
            ChangeOption::GenericChangeOption(o) => Self {
                display_name: o.display_name.clone(),
                reason: o.reason.clone(),
                operation: o.operation.clone(),
                argument: o.argument.clone(),
                value: o.value.clone(),
                exact: o
                    .entity_match
                    .as_ref()
                    .is_some_and(|m| EXACT_TYPES.contains(&m.match_type))
                    || o.match_reasons
                        .iter()
                        .flatten()
                        .any(|r| EXACT_REASONS.contains(&r.kind)),
                offers: Vec::new(),
            },
            ChangeOption::PharmacyChangeOption(o) => Self {
                display_name: o.display_name.clone(),
                reason: o.reason.clone(),
                operation: o.operation.clone(),
                argument: o.argument.clone(),
                value: o.value.clone(),
                exact: o
                    .entity_match
                    .as_ref()
                    .is_some_and(|m| EXACT_TYPES.contains(&m.match_type)),
                offers: o.offers.clone(),
            },
            ChangeOption::Other(o) => Self {
                display_name: o.display_name.clone(),
                reason: o.reason.clone(),
                operation: o.operation.clone(),
                argument: o.argument.clone(),
                value: o.value.clone(),
                exact: false,
                offers: Vec::new(),
            },
        }
    }
}

impl Change {
    /// The change's options as [`Choice`]s (none when it has none).
    pub fn choices(&self) -> Vec<Choice> {
        self.options.iter().flatten().map(Choice::from).collect()
    }

    /// The only automatic choice the network allows: a single option that matched
    /// exactly. Anything else goes to a person.
    pub fn auto_pick(&self) -> Option<Choice> {
        match self.choices().as_slice() {
            [only] if only.exact => Some(only.clone()),
            _ => None,
        }
    }

    pub fn is_ambiguous(&self) -> bool {
        self.status == ChangeStatus::Ambiguous
    }
}

/// Puts a chosen option back into the input it answers: `argument` is set to
/// `value`. An argument the input does not have is refused (`Err` names it).
pub trait AnswerOption {
    fn answer(&mut self, choice: &Choice) -> Result<(), String>;
}

fn parts(choice: &Choice) -> Result<(&str, cynic::Id), String> {
    match (&choice.argument, &choice.value) {
        (Some(argument), Some(value)) => Ok((argument.as_str(), cynic::Id::new(value))),
        _ => Err("the option names no argument and value".to_owned()),
    }
}

impl AnswerOption for PrescriptionInput {
    fn answer(&mut self, choice: &Choice) -> Result<(), String> {
        match parts(choice)? {
            ("treatment.id", id) => {
                self.treatment = Some(TreatmentReferenceInput {
                    id: Some(id),
                    ..Default::default()
                });
                Ok(())
            }
            (other, _) => Err(format!("a prescription input has no `{other}`")),
        }
    }
}

impl AnswerOption for OrderInput {
    fn answer(&mut self, choice: &Choice) -> Result<(), String> {
        match parts(choice)? {
            ("pharmacy.pharmacy.id", id) => {
                self.pharmacy = Some(OrderPharmacyInput {
                    pharmacy: Some(PharmacyReferenceInput {
                        id: Some(id),
                        ..Default::default()
                    }),
                    none: None,
                });
                Ok(())
            }
            (other, _) => Err(format!("an order input has no `{other}`")),
        }
    }
}

impl AnswerOption for PatientInput {
    fn answer(&mut self, choice: &Choice) -> Result<(), String> {
        let (argument, id) = parts(choice)?;
        let missing = || format!("a patient input has no `{argument}`");
        if argument == "demographic.preferredPharmacy.id" {
            let demographic = self.demographic.get_or_insert_with(Default::default);
            demographic.preferred_pharmacy = Some(PharmacyReferenceInput {
                id: Some(id),
                ..Default::default()
            });
            return Ok(());
        }
        // clinical.<list>.add.<n>.id
        let path: Vec<&str> = argument.split('.').collect();
        let ["clinical", list, "add", n, "id"] = path.as_slice() else {
            return Err(missing());
        };
        let n: usize = n.parse().map_err(|_| missing())?;
        let clinical = self.clinical.as_mut().ok_or_else(missing)?;
        let slot = match *list {
            "allergies" => clinical
                .allergies
                .as_mut()
                .and_then(|p| p.add.as_mut())
                .and_then(|a| a.get_mut(n))
                .map(|e| {
                    *e = super::documents::AllergyReferenceInput {
                        id: Some(id.clone()),
                        ..Default::default()
                    };
                }),
            "medications" => clinical
                .medications
                .as_mut()
                .and_then(|p| p.add.as_mut())
                .and_then(|a| a.get_mut(n))
                .map(|e| {
                    *e = super::documents::MedicationReferenceInput {
                        id: Some(id.clone()),
                        status: e.status,
                        ..Default::default()
                    };
                }),
            "diagnoses" => clinical
                .diagnoses
                .as_mut()
                .and_then(|p| p.add.as_mut())
                .and_then(|a| a.get_mut(n))
                .map(|e| {
                    *e = super::documents::DiagnosisReferenceInput {
                        id: Some(id.clone()),
                        ..Default::default()
                    };
                }),
            _ => None,
        };
        slot.ok_or_else(missing)
    }
}

// ---------- decoding the result unions

pub(crate) fn refused(e: UnauthorizedError) -> ClientError {
    ClientError::Refused {
        code: e.code,
        message: e.message,
        required_permission: e.required_permission,
    }
}

pub(crate) fn upstream(e: UpstreamServiceError) -> ClientError {
    ClientError::Upstream {
        code: e.code,
        message: e.message,
        service: e.service,
        retryable: e.retryable,
    }
}

fn unknown_member() -> ClientError {
    ClientError::protocol("the network answered with a result type this client does not know")
}

pub(crate) fn patient_record(
    record: Option<PatientRecordResult>,
) -> Result<Option<Patient>, ClientError> {
    match record {
        None => Ok(None),
        Some(PatientRecordResult::Patient(p)) => Ok(Some(p)),
        Some(PatientRecordResult::UpstreamServiceError(e)) => Err(upstream(e)),
        Some(PatientRecordResult::Unknown) => Err(unknown_member()),
    }
}

/// One decoder per result union: the payload's record (through `$record`),
/// the ambiguity's candidates, or the error members as [`ClientError`]s.
macro_rules! decoder {
    ($($name:ident: $union:ident { $payload:ident.$field:ident via $record:path, $ambiguous:ident } -> Outcome<$t:ty, $c:ty>;)*) => {$(
        pub(crate) fn $name(result: $union) -> Result<Outcome<$t, $c>, ClientError> {
            match result {
                $union::$payload(p) => Ok(Outcome::Record {
                    record: $record(p.$field)?,
                    applied: p.applied_changes,
                    unapplied: p.unapplied_changes,
                }),
                $union::$ambiguous(a) => Ok(Outcome::Ambiguous {
                    reason: a.reason,
                    candidates: a.candidates,
                }),
                $union::UnauthorizedError(e) => Err(refused(e)),
                $union::UpstreamServiceError(e) => Err(upstream(e)),
                $union::Unknown => Err(unknown_member()),
            }
        }
    )*};
}

/// A record that is always readable as it came.
fn as_is<T>(record: Option<T>) -> Result<Option<T>, ClientError> {
    Ok(record)
}

decoder! {
    patient_outcome: PatientResult { PatientPayload.patient via patient_record, AmbiguousPatientMatch } -> Outcome<Patient, PatientCandidate>;
    prescription_outcome: PrescriptionResult { PrescriptionPayload.prescription via as_is, AmbiguousPrescriptionMatch } -> Outcome<Prescription, PrescriptionCandidate>;
    order_outcome: OrderResult { OrderPayload.order via as_is, AmbiguousOrderMatch } -> Outcome<Order, OrderCandidate>;
}
