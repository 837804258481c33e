//! Pharmacy search: narrowing the catalog's pharmacies by id, name, location and
//! fulfillment type, and the offers shown beside each option (delivery promises,
//! and prices from the catalog's `[[prices]]`). As on the network, `near` takes
//! `latLong` (with `radiusMiles` to filter, or without it to sort by distance) or
//! `address` (sorted by distance); `near.text` is refused, since the network does
//! not support it yet. The sandbox has no geocoder: an address is placed at the
//! pharmacies of its postal code (or else its city), which is enough to sort by
//! distance.

use super::{Catalog, PharmacyEntry, PriceKind};
use crate::wire::{
    FulfillmentType, LocationInput, MatchReason, MatchReasonType, OfferAttributeTag,
    OfferPriceSummary, OfferPriceType, PharmacyOffer, PharmacyReferenceInput,
    PrescriptionDeliveryEstimate,
};

/// At most this many pharmacies are offered.
pub const MAX_OPTIONS: usize = 20;

/// What the network answers to `near.text` (its order page: "`text` isn't
/// supported yet").
pub const TEXT_NOT_SUPPORTED: &str = "`near.text` isn't supported by the network yet: send `near.address` (sorted by distance) or `near.latLong` (with `radiusMiles` to filter)";

/// A pharmacy that fits, with why and how far (miles) when a location was given.
#[derive(Debug)]
pub struct Hit<'a> {
    pub pharmacy: &'a PharmacyEntry,
    pub reasons: Vec<MatchReason>,
    pub miles: Option<f64>,
}

/// Why a pharmacy reference cannot be used: the input field at fault, below the
/// reference (`near.text`, `near.address.country`, …), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub field: &'static str,
    pub reason: String,
}

impl Refusal {
    fn at(field: &'static str, reason: impl Into<String>) -> Self {
        Self {
            field,
            reason: reason.into(),
        }
    }
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

/// Where `near` points, with the radius to filter by; a refusal says why it cannot.
fn centre(catalog: &Catalog, near: &LocationInput) -> Result<((f64, f64), Option<f64>), Refusal> {
    let LocationInput {
        lat_long,
        address,
        text,
    } = near;
    match (lat_long, address, text) {
        (_, _, Some(_)) => Err(Refusal::at("near.text", TEXT_NOT_SUPPORTED)),
        (Some(_), Some(_), None) => Err(Refusal::at(
            "near",
            "Send one of `near.latLong` or `near.address`, not both",
        )),
        (Some(ll), None, None) => {
            let number = |value: &str, what: &str| {
                value
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| Refusal::at("near.latLong", format!("{what} is not a number")))
            };
            let lat = number(&ll.latitude, "latitude")?;
            let lon = number(&ll.longitude, "longitude")?;
            if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
                return Err(Refusal::at(
                    "near.latLong",
                    "latitude/longitude out of range",
                ));
            }
            if ll.radius_miles.is_some_and(|r| r < 1) {
                return Err(Refusal::at(
                    "near.latLong.radiusMiles",
                    "radiusMiles must be at least 1",
                ));
            }
            Ok(((lat, lon), ll.radius_miles.map(f64::from)))
        }
        (None, Some(address), None) => {
            if address
                .country
                .as_deref()
                .is_none_or(|c| c.trim().is_empty())
            {
                return Err(Refusal::at(
                    "near.address.country",
                    "An address needs its country",
                ));
            }
            let zip = address.postal_code.as_deref().map(str::trim);
            let city = address.city.as_deref().map(str::trim);
            let same = |p: &&PharmacyEntry| match (zip, city) {
                (Some(zip), _) if !zip.is_empty() && p.postal_code == zip => true,
                (_, Some(city)) => p.city.eq_ignore_ascii_case(city),
                _ => false,
            };
            let around: Vec<&PharmacyEntry> = catalog.pharmacies.iter().filter(same).collect();
            centroid(&around).map(|c| (c, None)).ok_or_else(|| {
                Refusal::at(
                    "near.address",
                    "The network cannot place that address: give a postal code or city it knows, or send latLong",
                )
            })
        }
        (None, None, None) => Err(Refusal::at("near", "`near` needs latLong or address")),
    }
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
/// location was given; a refusal says why the reference cannot be used.
pub fn search<'a>(
    catalog: &'a Catalog,
    reference: &PharmacyReferenceInput,
) -> Result<Vec<Hit<'a>>, Refusal> {
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

/// A prescription an offer is made for: its id and its medication's.
#[derive(Debug, Clone, Copy)]
pub struct OfferFor<'a> {
    pub prescription_id: &'a str,
    pub medication_id: &'a str,
}

/// The sandbox's offers of a pharmacy for these prescriptions, one per way it
/// fulfils: when (deterministic), and at what price when the catalog prices every
/// one of the prescriptions' medications there, in one kind of price. A pharmacy
/// without prices, or an offer for no prescription, is priceless.
pub fn offers(
    catalog: &Catalog,
    pharmacy: &PharmacyEntry,
    prescriptions: &[OfferFor<'_>],
) -> Vec<PharmacyOffer> {
    let price_summary = price_summary(catalog, pharmacy, prescriptions);
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
            price_summary: price_summary.clone(),
            prescription_delivery_estimates: prescriptions
                .iter()
                .map(|p| PrescriptionDeliveryEstimate {
                    prescription_id: p.prescription_id.to_owned().into(),
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

/// The prescriptions' prices at `pharmacy` added up: `None` unless every one is
/// priced there, all in one kind. Amounts in dollars, rounded to the cent.
fn price_summary(
    catalog: &Catalog,
    pharmacy: &PharmacyEntry,
    prescriptions: &[OfferFor<'_>],
) -> Option<OfferPriceSummary> {
    let (first, rest) = prescriptions.split_first()?;
    let first = catalog.price(&pharmacy.id, first.medication_id)?;
    let (mut total, mut retail) = (first.total, first.retail);
    for p in rest {
        let price = catalog.price(&pharmacy.id, p.medication_id)?;
        if price.kind != first.kind {
            return None;
        }
        total += price.total;
        retail += price.retail;
    }
    let cents = |dollars: f64| (dollars * 100.0).round() / 100.0;
    Some(OfferPriceSummary {
        price_type: Some(match first.kind {
            PriceKind::Cash => OfferPriceType::Cash,
            PriceKind::Insurance => OfferPriceType::Insurance,
            PriceKind::Membership => OfferPriceType::Membership,
        }),
        total_amount: Some(cents(total)),
        total_retail_amount: Some(cents(retail)),
        total_savings: Some(cents(retail - total)),
    })
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
