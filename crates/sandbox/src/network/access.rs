//! The Network API's permission model, in one place: which permission each call
//! (`call_shape.rs`: Get, Sync, look-up, draft, Update, Sign, Send, Cancel) needs,
//! decided from the input's shape alone — before anything is looked
//! up, so a refusal never reveals whether a record exists — and the refusal it
//! gets without it. The same input and token always get the same answer.

use super::call_shape::{OrderCall, PatientCall, PrescriptionCall};
use super::types::UnauthorizedError;
use crate::graphql::{Caller, Permission};

/// A refusal: the code and what the caller tried to do.
struct Need {
    permission: Permission,
    code: &'static str,
    action: &'static str,
}

impl Need {
    const fn new(permission: Permission, code: &'static str, action: &'static str) -> Self {
        Self {
            permission,
            code,
            action,
        }
    }
}

fn first_missing(caller: &Caller, needs: &[Need]) -> Option<UnauthorizedError> {
    needs
        .iter()
        .find(|n| !caller.has(n.permission))
        .map(|n| UnauthorizedError {
            code: n.code.to_owned(),
            message: format!(
                "The caller is not authorized to {}: the token lacks {}",
                n.action,
                n.permission.as_str()
            ),
            required_permission: Some(n.permission.as_str().to_owned()),
        })
}

const READ_PATIENT: Need = Need::new(
    Permission::ReadPatient,
    "PATIENT_READ_UNAUTHORIZED",
    "read patients",
);
const WRITE_PATIENT: Need = Need::new(
    Permission::WritePatient,
    "PATIENT_WRITE_UNAUTHORIZED",
    "add or change patients",
);
const READ_PRESCRIPTION: Need = Need::new(
    Permission::ReadPrescription,
    "PRESCRIPTION_READ_UNAUTHORIZED",
    "read, look up or draft prescriptions",
);
const SIGN: Need = Need::new(
    Permission::WritePrescription,
    "PRESCRIPTION_SIGNING_UNAUTHORIZED",
    "sign prescriptions (machine tokens never sign; a prescriber signs with a user token)",
);
const READ_ORDER: Need = Need::new(
    Permission::ReadOrder,
    "ORDER_READ_UNAUTHORIZED",
    "read or draft orders",
);
const SEND: Need = Need::new(
    Permission::WriteOrder,
    "ORDER_SENDING_UNAUTHORIZED",
    "send orders",
);
const CANCEL: Need = Need::new(
    Permission::WriteOrder,
    "ORDER_CANCELING_UNAUTHORIZED",
    "cancel orders",
);

/// The refusal of a signature asked with a machine token: by the contract a
/// machine token never signs, whatever it carries. The answer has the shape of
/// every signing refusal (the permission a signer's token holds is named).
fn machine_never_signs() -> UnauthorizedError {
    UnauthorizedError {
        code: SIGN.code.to_owned(),
        message: "The caller is not authorized to sign prescriptions: a machine (client-credentials) token never signs, whatever its scopes; a prescriber signs with a user token".to_owned(),
        required_permission: Some(SIGN.permission.as_str().to_owned()),
    }
}

/// A Get `{ id }` needs `read:patient`; anything else may add or change a patient.
pub fn patient(caller: &Caller, call: &PatientCall) -> Option<UnauthorizedError> {
    match call {
        PatientCall::Get { .. } => first_missing(caller, &[READ_PATIENT]),
        PatientCall::Sync(_) | PatientCall::Update { .. } => {
            first_missing(caller, &[READ_PATIENT, WRITE_PATIENT])
        }
    }
}

/// Signing is a prescriber's act: a machine (client-credentials) token is
/// refused whatever permissions it carries, and a user token needs
/// `write:prescription`. Everything else (Get, look-up, drafting) is covered by
/// `read:prescription`.
pub fn prescription(caller: &Caller, call: &PrescriptionCall) -> Option<UnauthorizedError> {
    match call {
        PrescriptionCall::Sign { .. } if caller.is_machine() => Some(machine_never_signs()),
        PrescriptionCall::Sign { .. } => first_missing(caller, &[SIGN]),
        PrescriptionCall::Get { .. }
        | PrescriptionCall::LookUp { .. }
        | PrescriptionCall::LookUpDiagnoses { .. }
        | PrescriptionCall::Draft { .. }
        | PrescriptionCall::Update { .. } => first_missing(caller, &[READ_PRESCRIPTION]),
    }
}

/// Sending and canceling need `write:order`; reading and drafting `read:order`.
pub fn order(caller: &Caller, call: &OrderCall) -> Option<UnauthorizedError> {
    match call {
        OrderCall::Send(_) => first_missing(caller, &[READ_ORDER, SEND]),
        OrderCall::Cancel(_) => first_missing(caller, &[READ_ORDER, CANCEL]),
        OrderCall::Get { .. } | OrderCall::Draft(_) | OrderCall::Update(_) => {
            first_missing(caller, &[READ_ORDER])
        }
    }
}
