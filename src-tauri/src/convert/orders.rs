//! Orders: the network's order and pharmacies as the UI's views.

use rxdesk_client::network::documents as net;

use super::input::{plain_text, trimmed};
use super::patients::patient_record;
use super::prescriptions::prescription_view;
use super::vocabulary::{exception_kind, fulfillment, net_fulfillment, order_state};
use crate::ipc::{
    CommandError, ExceptionView, OrderView, PharmacySearch, PharmacyView, RecordKind,
};
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

/// A pharmacy search (an order's, or a patient's preferred pharmacy) as the
/// network's reference: each text checked, "near" read by [`near_input`].
pub fn pharmacy_reference(
    search: &PharmacySearch,
) -> Result<net::PharmacyReferenceInput, CommandError> {
    plain_text(
        "name",
        "Pharmacy name",
        search.name.as_deref().unwrap_or_default(),
    )?;
    plain_text("near", "Near", search.near.as_deref().unwrap_or_default())?;
    Ok(net::PharmacyReferenceInput {
        name: trimmed(search.name.as_deref()),
        near: near_input(search.near.as_deref(), search.radius_miles)?,
        fulfillment_type: search.fulfillment.map(net_fulfillment),
        ..Default::default()
    })
}

/// Where to look for pharmacies, from the search form's "Near" words and radius:
/// `42.35, -71.06` is a point (the radius filters), a US postal code is an
/// address there, anything else a city (`Boston` or `Boston, MA`). The network
/// takes `latLong` or `address` and nothing else (it does not read free text),
/// and wants an address's country. Nothing typed is no `near` (a radius alone is
/// refused).
pub fn near_input(
    near: Option<&str>,
    radius_miles: Option<u32>,
) -> Result<Option<net::LocationInput>, CommandError> {
    let near = near.map(str::trim).unwrap_or_default();
    if near.is_empty() && radius_miles.is_none() {
        return Ok(None);
    }
    if let Some((latitude, longitude)) = lat_long(near) {
        let radius_miles = radius_miles
            .map(|r| {
                i32::try_from(r).ok().filter(|r| *r >= 1).ok_or_else(|| {
                    invalid_near("The radius is a whole number of miles, at least 1.")
                })
            })
            .transpose()?;
        return Ok(Some(net::LocationInput {
            lat_long: Some(net::LatLongInput {
                latitude,
                longitude,
                radius_miles,
            }),
            ..Default::default()
        }));
    }
    if radius_miles.is_some() {
        return Err(invalid_near(
            "A radius goes with a latitude and longitude (for example 42.35, -71.06); an address is sorted by distance instead.",
        ));
    }
    let zip = near
        .split(|c: char| !c.is_ascii_digit())
        .find(|w| w.len() == 5)
        .map(str::to_owned);
    let address = match zip {
        Some(postal_code) => net::AddressInput {
            postal_code: Some(postal_code),
            country: Some("US".to_owned()),
            ..Default::default()
        },
        None => {
            let mut parts = near.split(',').map(str::trim);
            let city = parts.next().unwrap_or_default().to_owned();
            let state = parts
                .next()
                .filter(|s| s.len() == 2 && s.chars().all(|c| c.is_ascii_alphabetic()))
                .map(str::to_ascii_uppercase);
            net::AddressInput {
                city: Some(city),
                state,
                country: Some("US".to_owned()),
                ..Default::default()
            }
        }
    };
    Ok(Some(net::LocationInput {
        address: Some(address),
        ..Default::default()
    }))
}

/// `lat, long` in degrees, each within its range, as the network's strings.
fn lat_long(text: &str) -> Option<(String, String)> {
    let (lat, long) = text.split_once(',')?;
    let (lat, long) = (lat.trim(), long.trim());
    let lat_value: f64 = lat.parse().ok()?;
    let long_value: f64 = long.parse().ok()?;
    ((-90.0..=90.0).contains(&lat_value) && (-180.0..=180.0).contains(&long_value))
        .then(|| (lat.to_owned(), long.to_owned()))
}

fn invalid_near(message: &str) -> CommandError {
    CommandError::Invalid {
        code: "INVALID_NEAR".into(),
        message: message.to_owned(),
        field: Some("near".into()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod near_tests {
    use super::near_input;

    #[test]
    fn a_latitude_and_longitude_is_a_point_with_the_radius() {
        let near = near_input(Some(" 42.3570, -71.0520 "), Some(2))
            .unwrap()
            .unwrap();
        let point = near.lat_long.unwrap();
        assert_eq!(
            (
                point.latitude.as_str(),
                point.longitude.as_str(),
                point.radius_miles
            ),
            ("42.3570", "-71.0520", Some(2))
        );
        assert!(near.address.is_none() && near.text.is_none());
    }

    #[test]
    fn a_postal_code_is_an_address_in_the_us() {
        let near = near_input(Some("near 02110"), None).unwrap().unwrap();
        let address = near.address.unwrap();
        assert_eq!(address.postal_code.as_deref(), Some("02110"));
        assert_eq!(address.country.as_deref(), Some("US"));
        assert!(near.text.is_none());
    }

    #[test]
    fn a_place_in_words_is_a_city_and_its_state() {
        let address = near_input(Some("Somerville, ma"), None)
            .unwrap()
            .unwrap()
            .address
            .unwrap();
        assert_eq!(
            (
                address.city.as_deref(),
                address.state.as_deref(),
                address.country.as_deref()
            ),
            (Some("Somerville"), Some("MA"), Some("US"))
        );
    }

    #[test]
    fn a_radius_without_a_point_is_refused_in_words() {
        let error = near_input(Some("Boston"), Some(3)).unwrap_err();
        assert!(
            error.to_string().contains("latitude and longitude"),
            "{error}"
        );
    }

    #[test]
    fn nothing_typed_is_no_place_but_a_radius_alone_is_refused() {
        assert!(near_input(Some("  "), None).unwrap().is_none());
        let error = near_input(None, Some(3)).unwrap_err();
        assert!(
            error.to_string().contains("latitude and longitude"),
            "{error}"
        );
    }
}
