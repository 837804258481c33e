//! Pharmacy search: narrowing the catalog's pharmacies by id, name, location and
//! fulfillment type, and the offers shown beside each option. The sandbox has no
//! geocoder: an address is placed at the pharmacies of its postal code (or else
//! its city), which is enough to sort by distance.

use super::{Catalog, PharmacyEntry};
use crate::wire::{
    FulfillmentType, LocationInput, MatchReason, MatchReasonType, OfferAttributeTag, PharmacyOffer,
    PharmacyReferenceInput, PrescriptionDeliveryEstimate,
};

/// At most this many pharmacies are offered.
pub const MAX_OPTIONS: usize = 20;

/// A pharmacy that fits, with why and how far (miles) when a location was given.
#[derive(Debug)]
pub struct Hit<'a> {
    pub pharmacy: &'a PharmacyEntry,
    pub reasons: Vec<MatchReason>,
    pub miles: Option<f64>,
}

fn reason(kind: MatchReasonType, label: &str) -> MatchReason {
    MatchReason {
        kind,
        label: Some(label.to_owned()),
        confidence: None,
    }
}

/// Great-circle distance in miles.
pub fn miles_between(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (lat1, lon1) = (a.0.to_radians(), a.1.to_radians());
    let (lat2, lon2) = (b.0.to_radians(), b.1.to_radians());
    let h = ((lat2 - lat1) / 2.0).sin().powi(2)
        + lat1.cos() * lat2.cos() * ((lon2 - lon1) / 2.0).sin().powi(2);
    2.0 * 3958.8 * h.sqrt().asin()
}

/// Where `near` points, with the radius to filter by; `Err` says why it cannot.
fn centre(catalog: &Catalog, near: &LocationInput) -> Result<((f64, f64), Option<f64>), String> {
    if let Some(ll) = &near.lat_long {
        let lat: f64 = ll
            .latitude
            .trim()
            .parse()
            .map_err(|_| "latitude is not a number".to_owned())?;
        let lon: f64 = ll
            .longitude
            .trim()
            .parse()
            .map_err(|_| "longitude is not a number".to_owned())?;
        if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
            return Err("latitude/longitude out of range".to_owned());
        }
        return Ok(((lat, lon), ll.radius_miles.map(f64::from)));
    }
    if let Some(address) = &near.address {
        let same = |p: &&PharmacyEntry| match (&address.postal_code, &address.city) {
            (Some(zip), _) if p.postal_code == zip.trim() => true,
            (_, Some(city)) => p.city.eq_ignore_ascii_case(city.trim()),
            _ => false,
        };
        let around: Vec<&PharmacyEntry> = catalog.pharmacies.iter().filter(same).collect();
        return centroid(&around).map(|c| (c, None)).ok_or_else(|| {
            "the sandbox knows no location for that address (give a postal code or city it has pharmacies in, or latLong)".to_owned()
        });
    }
    if let Some(text) = &near.text {
        // Free text: a postal code in it wins, else a city it names.
        let lower = text.to_lowercase();
        let codes: Vec<&str> = lower
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .collect();
        let by_code: Vec<&PharmacyEntry> = catalog
            .pharmacies
            .iter()
            .filter(|p| codes.contains(&p.postal_code.as_str()))
            .collect();
        let around = if by_code.is_empty() {
            catalog
                .pharmacies
                .iter()
                .filter(|p| names_city(&lower, &p.city))
                .collect()
        } else {
            by_code
        };
        return centroid(&around).map(|c| (c, None)).ok_or_else(|| {
            "the sandbox knows no place in that text (name a postal code or city it has pharmacies in, or send latLong)".to_owned()
        });
    }
    Err("`near` needs latLong, address or text".to_owned())
}

/// Whether lower-cased `text` names `city` as a whole word (or words).
fn names_city(text: &str, city: &str) -> bool {
    let city = city.to_lowercase();
    text.match_indices(&city).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + city.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The middle of the pharmacies `around` (none → `None`).
fn centroid(around: &[&PharmacyEntry]) -> Option<(f64, f64)> {
    if around.is_empty() {
        return None;
    }
    let n = around.len() as f64;
    let lat = around.iter().map(|p| p.latitude).sum::<f64>() / n;
    let lon = around.iter().map(|p| p.longitude).sum::<f64>() / n;
    Some((lat, lon))
}

/// The pharmacies that fit every field of `reference`, nearest first when a
/// location was given; `Err` says why the reference cannot be used.
pub fn search<'a>(
    catalog: &'a Catalog,
    reference: &PharmacyReferenceInput,
) -> Result<Vec<Hit<'a>>, String> {
    let location = reference
        .near
        .as_ref()
        .map(|n| centre(catalog, n))
        .transpose()?;
    let mut hits: Vec<Hit<'a>> = Vec::new();
    for pharmacy in &catalog.pharmacies {
        let mut reasons = Vec::new();
        if let Some(id) = &reference.id {
            if pharmacy.id != id.as_str() {
                continue;
            }
            reasons.push(reason(MatchReasonType::ExactNameMatch, "Pharmacy id"));
        }
        if let Some(name) = &reference.name {
            if !pharmacy
                .name
                .to_lowercase()
                .contains(&name.trim().to_lowercase())
            {
                continue;
            }
            reasons.push(reason(MatchReasonType::Name, "Name match"));
        }
        if let Some(kind) = reference.fulfillment_type {
            if !pharmacy.fulfillment_types.contains(&kind) {
                continue;
            }
            reasons.push(reason(
                MatchReasonType::FulfillmentType,
                fulfillment_label(kind),
            ));
        }
        let mut miles = None;
        if let Some((point, radius)) = location {
            let d = miles_between(point, (pharmacy.latitude, pharmacy.longitude));
            if radius.is_some_and(|r| d > r) {
                continue;
            }
            miles = Some(d);
            reasons.push(reason(
                MatchReasonType::LatLong,
                &format!("{d:.1} miles away"),
            ));
        }
        if reference.open_at.is_some() {
            reasons.push(reason(
                MatchReasonType::OpenAt,
                "Open (the sandbox keeps no hours)",
            ));
        }
        hits.push(Hit {
            pharmacy,
            reasons,
            miles,
        });
    }
    if location.is_some() {
        hits.sort_by(|a, b| a.miles.unwrap_or(0.0).total_cmp(&b.miles.unwrap_or(0.0)));
    }
    hits.truncate(MAX_OPTIONS);
    Ok(hits)
}

fn fulfillment_label(kind: FulfillmentType) -> &'static str {
    match kind {
        FulfillmentType::PickUp => "Pick-up",
        FulfillmentType::MailOrder => "Mail order",
    }
}

/// The sandbox's offer of a pharmacy for these prescriptions: how it fulfils and
/// when, deterministic (no prices: the sandbox does not invent them).
pub fn offers(pharmacy: &PharmacyEntry, prescription_ids: &[String]) -> Vec<PharmacyOffer> {
    pharmacy
        .fulfillment_types
        .iter()
        .map(|&kind| PharmacyOffer {
            source: "rxdesk-sandbox".to_owned(),
            is_promoted: false,
            attribute_tags: vec![OfferAttributeTag {
                kind: "FULFILLMENT".to_owned(),
                label: fulfillment_label(kind).to_owned(),
            }],
            price_summary: None,
            prescription_delivery_estimates: prescription_ids
                .iter()
                .map(|id| PrescriptionDeliveryEstimate {
                    prescription_id: id.clone().into(),
                    delivery_promise: match kind {
                        FulfillmentType::PickUp => "Ready for pick-up in about an hour".to_owned(),
                        FulfillmentType::MailOrder => "Delivered in 2–4 days".to_owned(),
                    },
                    delivery_promise_range_start: None,
                    delivery_promise_range_end: None,
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::miles_between;

    #[test]
    fn distances_are_in_miles() {
        // Boston to New York is about 190 miles.
        let d = miles_between((42.3601, -71.0589), (40.7128, -74.0060));
        assert!((180.0..200.0).contains(&d), "{d}");
    }
}
