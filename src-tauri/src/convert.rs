//! From `rxdesk-client`'s types to the IPC shapes the UI sees: records,
//! sessions (who and what they may do, never the token) and errors.

use rxdesk_client::types as net;
use rxdesk_client::{ClientError, Session, SignInError};

use crate::ipc::{
    CommandError, Medication, Order, Patient, Pharmacy, Prescription, SessionInfo, SignInFailure,
};

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
            ClientError::Network { message } => Self::Network { message },
            ClientError::Server { message, .. } => Self::Server { message },
            // Only the Network API answers this; the app's calls do not use it yet.
            ClientError::Upstream { message, .. } => Self::Server { message },
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
        SignInError::Client(ClientError::Network { .. }) => SignInFailure::Network,
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

fn sex(s: net::Sex) -> &'static str {
    match s {
        net::Sex::Male => "MALE",
        net::Sex::Female => "FEMALE",
        net::Sex::Unknown => "UNKNOWN",
    }
}

pub fn parse_sex(s: &str) -> Result<net::Sex, CommandError> {
    match s {
        "MALE" => Ok(net::Sex::Male),
        "FEMALE" => Ok(net::Sex::Female),
        "UNKNOWN" => Ok(net::Sex::Unknown),
        _ => Err(CommandError::Invalid {
            code: "INVALID_INPUT".into(),
            message: "Choose female, male or unknown.".into(),
            field: Some("sex".into()),
        }),
    }
}

pub fn prescription_state(s: net::PrescriptionState) -> &'static str {
    match s {
        net::PrescriptionState::Draft => "DRAFT",
        net::PrescriptionState::Active => "ACTIVE",
        net::PrescriptionState::Canceled => "CANCELED",
    }
}

fn order_state(s: net::OrderState) -> &'static str {
    match s {
        net::OrderState::Draft => "DRAFT",
        net::OrderState::Routing => "ROUTING",
        net::OrderState::Placed => "PLACED",
        net::OrderState::Canceled => "CANCELED",
    }
}

impl From<net::Patient> for Patient {
    fn from(p: net::Patient) -> Self {
        Self {
            id: p.id,
            external_id: p.external_id,
            first_name: p.name.first,
            middle_name: p.name.middle,
            last_name: p.name.last,
            full_name: p.name.full,
            date_of_birth: p.date_of_birth,
            sex: sex(p.sex).to_owned(),
            email: p.email,
            phone: p.phone,
        }
    }
}

impl From<net::Medication> for Medication {
    fn from(m: net::Medication) -> Self {
        let name = if m.strength.is_empty() {
            format!("{} ({})", m.name, m.form)
        } else {
            format!("{} {} ({})", m.name, m.strength, m.form)
        };
        Self { id: m.id, name }
    }
}

impl From<net::Pharmacy> for Pharmacy {
    fn from(p: net::Pharmacy) -> Self {
        let a = p.address;
        Self {
            id: p.id,
            name: p.name,
            address: format!("{}, {} {} {}", a.street1, a.city, a.state, a.postal_code),
        }
    }
}

fn small(n: i64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl From<net::Prescription> for Prescription {
    fn from(p: net::Prescription) -> Self {
        Self {
            id: p.id,
            state: prescription_state(p.state).to_owned(),
            patient_id: p.patient.id,
            patient_name: p.patient.name.full,
            medication: Medication::from(p.treatment).name,
            dispense_quantity: p.dispense_quantity,
            dispense_unit: p.dispense_unit,
            refills: small(p.fills_allowed.saturating_sub(1).max(0)),
            days_supply: small(p.days_supply),
            instructions: p.instructions,
            notes: p.notes,
            effective_date: p.effective_date,
            written_at: p.written_at,
        }
    }
}

impl From<net::Order> for Order {
    fn from(o: net::Order) -> Self {
        Self {
            id: o.id,
            state: order_state(o.state).to_owned(),
            patient_id: o.patient.id,
            pharmacy: o.pharmacy.map(Pharmacy::from),
            prescriptions: o
                .fills
                .into_iter()
                .map(|f| Prescription::from(f.prescription))
                .collect(),
            created_at: o.created_at,
        }
    }
}
