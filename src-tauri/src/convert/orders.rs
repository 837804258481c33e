//! Orders: the network's order and pharmacies as the UI's views.

use rxdesk_client::network::documents as net;

use super::patients::patient_record;
use super::prescriptions::prescription_view;
use super::vocabulary::{exception_kind, fulfillment, order_state};
use crate::ipc::{ExceptionView, OrderView, PharmacyView, RecordKind};
use crate::links::link;

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
                kind: exception_kind(e.kind),
                message: e.message,
                created_at: e.created_at.0,
            })
            .collect(),
    }
}
