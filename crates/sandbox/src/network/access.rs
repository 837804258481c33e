//! The Network API's permission model, in one place: which permission each call
//! shape needs (and which shapes are a Get, which only reads), decided from the
//! input's shape alone — before anything is looked
//! up, so a refusal never reveals whether a record exists — and the refusal it
//! gets without it. The same input and token always get the same answer.

use super::types::{OrderInput, OrderState, PatientInput, PrescriptionInput, UnauthorizedError};
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
pub fn patient(caller: &Caller, input: &PatientInput) -> Option<UnauthorizedError> {
    if patient_is_get(input) {
        first_missing(caller, &[READ_PATIENT])
    } else {
        first_missing(caller, &[READ_PATIENT, WRITE_PATIENT])
    }
}

/// Signing is a prescriber's act: a machine (client-credentials) token is
/// refused whatever permissions it carries, and a user token needs
/// `write:prescription`. Everything else (Get, look-up, drafting) is covered by
/// `read:prescription`.
pub fn prescription(caller: &Caller, input: &PrescriptionInput) -> Option<UnauthorizedError> {
    if input.signing.is_some() {
        if caller.is_machine() {
            return Some(machine_never_signs());
        }
        first_missing(caller, &[SIGN])
    } else {
        first_missing(caller, &[READ_PRESCRIPTION])
    }
}

/// Sending and canceling need `write:order`; reading and drafting `read:order`.
pub fn order(caller: &Caller, input: &OrderInput) -> Option<UnauthorizedError> {
    match input.state {
        Some(OrderState::Submitted) => first_missing(caller, &[READ_ORDER, SEND]),
        Some(OrderState::Canceled) => first_missing(caller, &[READ_ORDER, CANCEL]),
        Some(OrderState::Draft) | None => first_missing(caller, &[READ_ORDER]),
    }
}

/// A patient Get: `{ id }` and nothing else. It only reads.
pub fn patient_is_get(input: &PatientInput) -> bool {
    let PatientInput {
        id,
        demographic,
        clinical,
    } = input;
    id.is_some() && demographic.is_none() && clinical.is_none()
}

/// A prescription Get: `{ id }` and nothing else. It only reads.
pub fn prescription_is_get(input: &PrescriptionInput) -> bool {
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
    id.is_some()
        && external_id.is_none()
        && patient.is_none()
        && template_id.is_none()
        && treatment.is_none()
        && instructions.is_none()
        && dispense.is_none()
        && clinical.is_none()
        && signing.is_none()
}

/// An order Get: `{ id }` and nothing else. It only reads.
pub fn order_is_get(input: &OrderInput) -> bool {
    let OrderInput {
        id,
        external_id,
        patient,
        prescriptions,
        pharmacy,
        state,
    } = input;
    id.is_some()
        && external_id.is_none()
        && patient.is_none()
        && prescriptions.is_none()
        && pharmacy.is_none()
        && state.is_none()
}

#[cfg(test)]
mod tests {
    use async_graphql::ID;

    use super::*;
    use crate::network::types::{OrderInput, PrescriptionSigningDetailsInput};

    fn id() -> Option<ID> {
        Some(ID::from("rec_1"))
    }

    #[test]
    fn an_id_alone_is_a_get_of_each_record() {
        let patient = PatientInput {
            id: id(),
            ..PatientInput::default()
        };
        let prescription = PrescriptionInput {
            id: id(),
            ..PrescriptionInput::default()
        };
        let order = OrderInput {
            id: id(),
            ..OrderInput::default()
        };

        assert!(patient_is_get(&patient));
        assert!(prescription_is_get(&prescription));
        assert!(order_is_get(&order));
    }

    #[test]
    fn an_id_with_a_change_or_no_id_is_not_a_get() {
        let sign = PrescriptionInput {
            id: id(),
            signing: Some(PrescriptionSigningDetailsInput {
                signed_hash: Some("hash".to_owned()),
                message: None,
            }),
            ..PrescriptionInput::default()
        };
        let send = OrderInput {
            id: id(),
            state: Some(OrderState::Submitted),
            ..OrderInput::default()
        };

        assert!(!prescription_is_get(&sign));
        assert!(!order_is_get(&send));
        assert!(!patient_is_get(&PatientInput::default()));
        assert!(!prescription_is_get(&PrescriptionInput::default()));
    }
}
