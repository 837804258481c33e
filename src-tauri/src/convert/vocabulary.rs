//! The network's enums and the UI's string unions, both ways.

use rxdesk_client::network::documents as net;

use crate::ipc::{
    AlertKind, AlertSeverity, DraftStatus, ExceptionKind, Fulfillment, MedicationStatus,
    OrderState, Sex, SigningState,
};

pub fn sex(s: net::Sex) -> Sex {
    match s {
        net::Sex::Female => Sex::Female,
        net::Sex::Male => Sex::Male,
        net::Sex::Unknown => Sex::Unknown,
    }
}

pub(crate) fn net_sex(s: Sex) -> net::Sex {
    match s {
        Sex::Female => net::Sex::Female,
        Sex::Male => net::Sex::Male,
        Sex::Unknown => net::Sex::Unknown,
    }
}

pub(crate) fn medication_status(s: net::MedicationHistoryStatus) -> MedicationStatus {
    match s {
        net::MedicationHistoryStatus::Active => MedicationStatus::Active,
        net::MedicationHistoryStatus::Historical => MedicationStatus::Historical,
        net::MedicationHistoryStatus::Unknown => MedicationStatus::Unknown,
    }
}

pub(crate) fn net_medication_status(s: MedicationStatus) -> net::MedicationHistoryStatus {
    match s {
        MedicationStatus::Active => net::MedicationHistoryStatus::Active,
        MedicationStatus::Historical => net::MedicationHistoryStatus::Historical,
        MedicationStatus::Unknown => net::MedicationHistoryStatus::Unknown,
    }
}

pub(crate) fn draft_status(s: net::DraftStatus) -> DraftStatus {
    match s {
        net::DraftStatus::Ready => DraftStatus::Ready,
        net::DraftStatus::Warning => DraftStatus::Warning,
        net::DraftStatus::Blocked => DraftStatus::Blocked,
    }
}

pub(crate) fn signing_state(s: net::PrescriptionSigningState) -> SigningState {
    match s {
        net::PrescriptionSigningState::Unsigned => SigningState::Unsigned,
        net::PrescriptionSigningState::Signed => SigningState::Signed,
        net::PrescriptionSigningState::InvalidatedSign => SigningState::InvalidatedSign,
    }
}

pub(crate) fn alert_severity(s: net::ScreeningSeverity) -> AlertSeverity {
    match s {
        net::ScreeningSeverity::Minor => AlertSeverity::Minor,
        net::ScreeningSeverity::Moderate => AlertSeverity::Moderate,
        net::ScreeningSeverity::Major => AlertSeverity::Major,
    }
}

pub(crate) fn alert_kind(k: net::ScreeningAlertType) -> AlertKind {
    match k {
        net::ScreeningAlertType::Drug => AlertKind::Drug,
        net::ScreeningAlertType::Allergen => AlertKind::Allergen,
        net::ScreeningAlertType::Condition => AlertKind::Condition,
    }
}

pub(crate) fn order_state(s: net::OrderState) -> OrderState {
    match s {
        net::OrderState::Draft => OrderState::Draft,
        net::OrderState::Submitted => OrderState::Submitted,
        net::OrderState::Canceled => OrderState::Canceled,
    }
}

pub(crate) fn exception_kind(k: net::OrderExceptionType) -> ExceptionKind {
    use net::OrderExceptionType as T;
    match k {
        T::OrderError => ExceptionKind::OrderError,
        T::DemographicMismatch => ExceptionKind::DemographicMismatch,
        T::PharmacyUnreachable => ExceptionKind::PharmacyUnreachable,
        T::PharmacyClosed => ExceptionKind::PharmacyClosed,
        T::ExternalTransfer => ExceptionKind::ExternalTransfer,
        T::PharmacyDoesNotAcceptInsurance => ExceptionKind::PharmacyDoesNotAcceptInsurance,
        T::PharmacyNeedsInsuranceInfo => ExceptionKind::PharmacyNeedsInsuranceInfo,
        T::SupervisingPhysicianNeeded => ExceptionKind::SupervisingPhysicianNeeded,
        T::DoctorNotLicensedInState => ExceptionKind::DoctorNotLicensedInState,
    }
}

pub(crate) fn fulfillment(f: net::FulfillmentType) -> Fulfillment {
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
