//! The typed GraphQL API: [`Api`] has one async fn per operation of the network
//! (queries and mutations), built on the compile-time-checked documents in
//! `ops` and returning the domain types of [`types`].
//!
//! Here too: the transport (bearer token, one `tracing` span per operation with
//! its name, duration and outcome — never variables or results), the mapping of
//! every refusal shape to [`ClientError`], the retry policy (backoff on network or
//! server trouble only for reads and for creates that carry an `externalId`), and
//! the machine-token rule (after `INVALID_AUTHORIZATION_HEADER`, one forced renewal
//! and one retry). Token acquisition itself lives in `token` and `session`.

mod ops;
pub mod types;

use std::future::Future;

use graphql_client::GraphQLQuery;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use url::Url;

use crate::error::{ClientError, shape_error};
use crate::secret::Secret;
use crate::token::MachineTokens;
use crate::transport::{Auth, Retry, Transport};
use types::*;

/// The page size the `all_*` helpers ask for: the server's maximum, or half of it
/// for orders, whose nested fills would exceed the server's complexity budget.
const ALL_PAGE_SIZE: u32 = 100;
const ALL_ORDERS_PAGE_SIZE: u32 = 50;

/// The network's GraphQL API as one caller (a signed-in user or a backend) sees
/// it. Cheap to clone; clones share the HTTP connection pool and machine tokens.
#[derive(Debug, Clone)]
pub struct Api {
    transport: Transport,
}

impl Api {
    pub(crate) fn bearer(http: reqwest::Client, endpoint: Url, token: Secret) -> Self {
        Self {
            transport: Transport::new(http, endpoint, Auth::Bearer(token)),
        }
    }

    pub(crate) fn machine(http: reqwest::Client, endpoint: Url, tokens: MachineTokens) -> Self {
        Self {
            transport: Transport::new(http, endpoint, Auth::Machine(tokens)),
        }
    }

    pub(crate) fn anonymous(http: reqwest::Client, endpoint: Url) -> Self {
        Self {
            transport: Transport::new(http, endpoint, Auth::None),
        }
    }

    /// `{ ping }`: tests the token; touches no records.
    pub async fn ping(&self) -> Result<String, ClientError> {
        self.execute::<ops::Ping, _>("ping", ops::ping::Variables, Retry::Safe, |data| {
            Ok(data.ping)
        })
        .await
    }

    /// Who the token acts for: user or machine, role, permissions, organization.
    pub async fn me(&self) -> Result<Me, ClientError> {
        self.execute::<ops::WhoAmI, _>("me", ops::who_am_i::Variables, Retry::Safe, |data| {
            convert(data.me)
        })
        .await
    }

    /// One page of patients.
    pub async fn patients(
        &self,
        filter: &PatientFilter,
        page: &PageRequest,
    ) -> Result<Page<Patient>, ClientError> {
        let variables = ops::list_patients::Variables {
            filter: Some(convert(filter)?),
            after: page.after.clone(),
            first: page.first.map(i64::from),
        };
        self.execute::<ops::ListPatients, _>("patients", variables, Retry::Safe, |data| {
            page_of(data.patients)
        })
        .await
    }

    /// Every patient matching `filter`, page after page.
    pub async fn all_patients(&self, filter: &PatientFilter) -> Result<Vec<Patient>, ClientError> {
        all_pages(ALL_PAGE_SIZE, |page| async move {
            self.patients(filter, &page).await
        })
        .await
    }

    /// A patient by id; [`ClientError::NotFound`] when this organization has none.
    pub async fn patient(&self, id: &str) -> Result<Patient, ClientError> {
        let variables = ops::get_patient::Variables { id: id.to_owned() };
        self.execute::<ops::GetPatient, _>("patient", variables, Retry::Safe, |data| {
            found(data.patient, "patient")
        })
        .await
    }

    /// One page of prescriptions.
    pub async fn prescriptions(
        &self,
        filter: &PrescriptionFilter,
        page: &PageRequest,
    ) -> Result<Page<Prescription>, ClientError> {
        let variables = ops::list_prescriptions::Variables {
            filter: Some(convert(filter)?),
            after: page.after.clone(),
            first: page.first.map(i64::from),
        };
        self.execute::<ops::ListPrescriptions, _>("prescriptions", variables, Retry::Safe, |data| {
            page_of(data.prescriptions)
        })
        .await
    }

    /// Every prescription matching `filter`, page after page.
    pub async fn all_prescriptions(
        &self,
        filter: &PrescriptionFilter,
    ) -> Result<Vec<Prescription>, ClientError> {
        all_pages(ALL_PAGE_SIZE, |page| async move {
            self.prescriptions(filter, &page).await
        })
        .await
    }

    /// A prescription by id; [`ClientError::NotFound`] when this organization has none.
    pub async fn prescription(&self, id: &str) -> Result<Prescription, ClientError> {
        let variables = ops::get_prescription::Variables { id: id.to_owned() };
        self.execute::<ops::GetPrescription, _>("prescription", variables, Retry::Safe, |data| {
            found(data.prescription, "prescription")
        })
        .await
    }

    /// One page of orders.
    pub async fn orders(
        &self,
        filter: &OrderFilter,
        page: &PageRequest,
    ) -> Result<Page<Order>, ClientError> {
        let variables = ops::list_orders::Variables {
            filter: Some(convert(filter)?),
            after: page.after.clone(),
            first: page.first.map(i64::from),
        };
        self.execute::<ops::ListOrders, _>("orders", variables, Retry::Safe, |data| {
            page_of(data.orders)
        })
        .await
    }

    /// Every order matching `filter`, page after page.
    pub async fn all_orders(&self, filter: &OrderFilter) -> Result<Vec<Order>, ClientError> {
        all_pages(ALL_ORDERS_PAGE_SIZE, |page| async move {
            self.orders(filter, &page).await
        })
        .await
    }

    /// An order by id; [`ClientError::NotFound`] when this organization has none.
    pub async fn order(&self, id: &str) -> Result<Order, ClientError> {
        let variables = ops::get_order::Variables { id: id.to_owned() };
        self.execute::<ops::GetOrder, _>("order", variables, Retry::Safe, |data| {
            found(data.order, "order")
        })
        .await
    }

    /// Catalog medications whose name matches `name` (case-insensitive).
    pub async fn medications(
        &self,
        name: &str,
        first: Option<u32>,
    ) -> Result<Vec<Medication>, ClientError> {
        let variables = ops::search_medications::Variables {
            filter: Some(ops::search_medications::MedicationFilter {
                name: Some(name.to_owned()),
            }),
            first: first.map(i64::from),
        };
        self.execute::<ops::SearchMedications, _>("medications", variables, Retry::Safe, |data| {
            convert(data.medications)
        })
        .await
    }

    /// Pharmacies whose name contains `name` (all when `None`).
    pub async fn pharmacies(
        &self,
        name: Option<&str>,
        first: Option<u32>,
    ) -> Result<Vec<Pharmacy>, ClientError> {
        let variables = ops::search_pharmacies::Variables {
            name: name.map(str::to_owned),
            first: first.map(i64::from),
        };
        self.execute::<ops::SearchPharmacies, _>("pharmacies", variables, Retry::Safe, |data| {
            convert(data.pharmacies)
        })
        .await
    }

    /// Adds a patient (`write:patient`). With an `external_id` already used in the
    /// organization, the existing patient comes back and nothing is created.
    pub async fn create_patient(&self, patient: &NewPatient) -> Result<Patient, ClientError> {
        let variables = ops::create_patient::Variables {
            input: convert(patient)?,
        };
        let retry = Retry::create(patient.external_id.as_ref());
        self.execute::<ops::CreatePatient, _>("createPatient", variables, retry, |data| {
            outcome(data.create_patient)
        })
        .await
    }

    /// Changes the fields given (`write:patient`).
    pub async fn update_patient(
        &self,
        id: &str,
        changes: &PatientChanges,
    ) -> Result<Patient, ClientError> {
        let variables = ops::update_patient::Variables {
            id: id.to_owned(),
            input: convert(changes)?,
        };
        self.execute::<ops::UpdatePatient, _>("updatePatient", variables, Retry::Never, |data| {
            outcome(data.update_patient)
        })
        .await
    }

    /// Drafts a prescription (`read:prescription`); state `DRAFT`.
    pub async fn create_prescription(
        &self,
        prescription: &NewPrescription,
    ) -> Result<Prescription, ClientError> {
        let variables = ops::create_prescription::Variables {
            input: convert(prescription)?,
        };
        let retry = Retry::create(prescription.external_id.as_ref());
        self.execute::<ops::CreatePrescription, _>("createPrescription", variables, retry, |data| {
            outcome(data.create_prescription)
        })
        .await
    }

    /// Signs a draft (`write:prescription`, user tokens of prescribers only).
    pub async fn sign_prescription(&self, id: &str) -> Result<Prescription, ClientError> {
        let variables = ops::sign_prescription::Variables { id: id.to_owned() };
        self.execute::<ops::SignPrescription, _>(
            "signPrescription",
            variables,
            Retry::Never,
            |data| outcome(data.sign_prescription),
        )
        .await
    }

    /// Signs several drafts in one request: one result per id, in the order given.
    pub async fn sign_prescriptions(
        &self,
        ids: &[String],
    ) -> Result<Vec<Result<Prescription, ClientError>>, ClientError> {
        let variables = ops::sign_prescriptions::Variables { ids: ids.to_vec() };
        self.execute::<ops::SignPrescriptions, _>(
            "signPrescriptions",
            variables,
            Retry::Never,
            |data| Ok(data.sign_prescriptions.into_iter().map(outcome).collect()),
        )
        .await
    }

    /// Cancels a prescription (`read:prescription` for a draft, `write:prescription` once signed).
    pub async fn cancel_prescription(&self, id: &str) -> Result<Prescription, ClientError> {
        let variables = ops::cancel_prescription::Variables { id: id.to_owned() };
        self.execute::<ops::CancelPrescription, _>(
            "cancelPrescription",
            variables,
            Retry::Never,
            |data| outcome(data.cancel_prescription),
        )
        .await
    }

    /// Drafts an order from prescriptions (`read:order`); state `DRAFT`.
    pub async fn create_order(&self, order: &NewOrder) -> Result<Order, ClientError> {
        let variables = ops::create_order::Variables {
            input: ops::create_order::CreateOrderInput {
                external_id: order.external_id.clone(),
                patient_id: order.patient_id.clone(),
                fills: order
                    .prescription_ids
                    .iter()
                    .map(|id| ops::create_order::FillInput {
                        prescription_id: id.clone(),
                    })
                    .collect(),
                pharmacy_id: order.pharmacy_id.clone(),
                address: order.address.as_ref().map(convert).transpose()?,
            },
        };
        let retry = Retry::create(order.external_id.as_ref());
        self.execute::<ops::CreateOrder, _>("createOrder", variables, retry, |data| {
            outcome(data.create_order)
        })
        .await
    }

    /// Sends a draft order (`write:order`; every prescription on it signed).
    pub async fn send_order(&self, id: &str) -> Result<Order, ClientError> {
        let variables = ops::send_order::Variables { id: id.to_owned() };
        self.execute::<ops::SendOrder, _>("sendOrder", variables, Retry::Never, |data| {
            outcome(data.send_order)
        })
        .await
    }

    /// Cancels an order (`read:order` for a draft, `write:order` once sent).
    pub async fn cancel_order(&self, id: &str) -> Result<Order, ClientError> {
        let variables = ops::cancel_order::Variables { id: id.to_owned() };
        self.execute::<ops::CancelOrder, _>("cancelOrder", variables, Retry::Never, |data| {
            outcome(data.cancel_order)
        })
        .await
    }

    /// Sends one operation (see [`Transport::send`]) and maps its data with `finish`.
    async fn execute<Q: GraphQLQuery, T>(
        &self,
        op: &'static str,
        variables: Q::Variables,
        retry: Retry,
        finish: impl FnOnce(Q::ResponseData) -> Result<T, ClientError>,
    ) -> Result<T, ClientError> {
        let body = serde_json::to_vec(&Q::build_query(variables)).map_err(|e| {
            ClientError::protocol(format!("cannot encode {op}: {}", shape_error(&e)))
        })?;
        self.transport
            .send::<Q::ResponseData, T>(op, body, retry, finish)
            .await
    }
}

/// The `UnauthorizedError`/`ValidationError` members of a mutation's result union.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ErrorMember {
    code: String,
    message: String,
    required_permission: Option<String>,
    field: Option<String>,
}

/// A mutation's result union: the record, or the refusal/rejection as an error.
fn outcome<T: DeserializeOwned>(result: impl Serialize) -> Result<T, ClientError> {
    let value = serde_json::to_value(result).map_err(|e| {
        ClientError::protocol(format!(
            "cannot read a mutation result: {}",
            shape_error(&e)
        ))
    })?;
    let member = || {
        serde_json::from_value::<ErrorMember>(value.clone()).map_err(|e| {
            ClientError::protocol(format!("malformed error member: {}", shape_error(&e)))
        })
    };
    match value.get("__typename").and_then(Value::as_str) {
        Some("UnauthorizedError") => {
            let m = member()?;
            Err(ClientError::Refused {
                code: m.code,
                message: m.message,
                required_permission: m.required_permission,
            })
        }
        Some("ValidationError") => {
            let m = member()?;
            if m.code == "NOT_FOUND" {
                Err(ClientError::NotFound { message: m.message })
            } else {
                Err(ClientError::Invalid {
                    code: m.code,
                    message: m.message,
                    field: m.field,
                })
            }
        }
        _ => convert(value),
    }
}

/// A generated type into its domain twin (same GraphQL field names), or back.
fn convert<T: DeserializeOwned>(value: impl Serialize) -> Result<T, ClientError> {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .map_err(|e| ClientError::protocol(format!("unexpected shape: {}", shape_error(&e))))
}

fn found<T: DeserializeOwned>(value: Option<impl Serialize>, what: &str) -> Result<T, ClientError> {
    match value {
        Some(v) => convert(v),
        None => Err(ClientError::NotFound {
            message: format!("no such {what} in this organization"),
        }),
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Connection<T> {
    nodes: Vec<T>,
    page_info: PageInfo,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageInfo {
    has_next_page: bool,
    end_cursor: Option<String>,
}

fn page_of<T: DeserializeOwned>(connection: impl Serialize) -> Result<Page<T>, ClientError> {
    let c: Connection<T> = convert(connection)?;
    Ok(Page {
        items: c.nodes,
        next_cursor: if c.page_info.has_next_page {
            c.page_info.end_cursor
        } else {
            None
        },
    })
}

/// Fetches page after page until the last one.
async fn all_pages<T, F, Fut>(page_size: u32, mut fetch: F) -> Result<Vec<T>, ClientError>
where
    F: FnMut(PageRequest) -> Fut,
    Fut: Future<Output = Result<Page<T>, ClientError>>,
{
    let mut items = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = fetch(PageRequest {
            after: after.clone(),
            first: Some(page_size),
        })
        .await?;
        items.extend(page.items);
        match page.next_cursor {
            Some(next) if Some(&next) == after.as_ref() => {
                return Err(ClientError::protocol(
                    "the server returned the same cursor twice",
                ));
            }
            Some(next) => after = Some(next),
            None => return Ok(items),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::time::Duration;

    use super::*;
    use crate::transport::{backoff, decode_response};
    use serde_json::json;

    #[test]
    fn empty_authorization_header_means_signed_out() {
        let body = json!({"errors":[{"message":"Authentication token is not present","extensions":{"code":"EMPTY_AUTHORIZATION_HEADER"}}]});

        let e = decode_response::<Value>(401, body.to_string().as_bytes()).unwrap_err();

        assert_eq!(
            e,
            ClientError::SignedOut {
                code: "EMPTY_AUTHORIZATION_HEADER".into(),
                message: "Authentication token is not present".into()
            }
        );
    }

    #[test]
    fn unauthorized_error_member_is_refused_with_permission() {
        let member = json!({"__typename":"UnauthorizedError","code":"PRESCRIPTION_SIGNING_UNAUTHORIZED","message":"not authorized to sign prescriptions","requiredPermission":"write:prescription"});

        let e = outcome::<Prescription>(member).unwrap_err();

        assert_eq!(
            e,
            ClientError::Refused {
                code: "PRESCRIPTION_SIGNING_UNAUTHORIZED".into(),
                message: "not authorized to sign prescriptions".into(),
                required_permission: Some("write:prescription".into()),
            }
        );
    }

    #[test]
    fn validation_error_member_is_invalid_with_field() {
        let member = json!({"__typename":"ValidationError","code":"INVALID_INPUT","message":"not a date","field":"dateOfBirth"});

        let e = outcome::<Patient>(member).unwrap_err();

        assert!(matches!(e, ClientError::Invalid { field: Some(f), .. } if f == "dateOfBirth"));
    }

    #[test]
    fn not_found_validation_error_is_not_found() {
        let member = json!({"__typename":"ValidationError","code":"NOT_FOUND","message":"no such prescription","field":"id"});

        let e = outcome::<Prescription>(member).unwrap_err();

        assert!(matches!(e, ClientError::NotFound { .. }));
    }

    #[test]
    fn a_query_refusal_is_refused_with_its_permission() {
        let body = json!({"data":null,"errors":[{"message":"not allowed to read patients","extensions":{"code":"PATIENT_READ_UNAUTHORIZED","requiredPermission":"read:patient"}}]});

        let e = decode_response::<Value>(200, body.to_string().as_bytes()).unwrap_err();

        assert!(
            matches!(&e, ClientError::Refused { required_permission: Some(p), .. } if p == "read:patient"),
            "{e:?}"
        );
    }

    #[test]
    fn a_document_the_server_rejects_is_a_protocol_error() {
        let body = json!({"errors":[{"message":"Query is too complex."}]});

        let e = decode_response::<Value>(200, body.to_string().as_bytes()).unwrap_err();

        assert!(matches!(e, ClientError::Protocol { .. }), "{e:?}");
    }

    #[test]
    fn a_server_failure_without_json_is_server_trouble() {
        let e = decode_response::<Value>(502, b"Bad Gateway").unwrap_err();

        assert!(e.is_transient());
    }

    #[test]
    fn data_of_the_wrong_shape_is_a_protocol_error() {
        let e =
            decode_response::<ops::ping::ResponseData>(200, br#"{"data":{"ping":3}}"#).unwrap_err();

        assert!(matches!(e, ClientError::Protocol { .. }));
    }

    fn patient_json() -> Value {
        json!({"id":"pat_1","externalId":"p-1","name":{"first":"Jo","middle":null,"last":"Doe","full":"Jo Doe"},
               "dateOfBirth":"1990-01-01","sex":"FEMALE","gender":null,"email":null,"phone":null,
               "address":{"street1":"1 Main St","street2":null,"city":"Springfield","state":"IL","postalCode":"62701","country":"US"},
               "createdAt":"2026-01-01T00:00:00Z"})
    }

    #[test]
    fn a_created_patient_maps_to_the_domain_type() {
        let mut member = patient_json();
        member["__typename"] = json!("Patient");
        let data: ops::create_patient::ResponseData =
            serde_json::from_value(json!({ "createPatient": member })).unwrap();

        let patient: Patient = outcome(data.create_patient).unwrap();

        assert_eq!(patient.id, "pat_1");
        assert_eq!(patient.sex, Sex::Female);
        assert_eq!(patient.address.unwrap().postal_code, "62701");
    }

    #[test]
    fn a_page_carries_the_next_cursor_only_when_there_is_one() {
        let data: ops::list_patients::ResponseData = serde_json::from_value(json!({
            "patients": {"nodes": [patient_json()], "pageInfo": {"hasNextPage": true, "endCursor": "c1"}}
        }))
        .unwrap();

        let page: Page<Patient> = page_of(data.patients).unwrap();

        assert_eq!(page.items.len(), 1);
        assert_eq!(page.next_cursor.as_deref(), Some("c1"));
    }

    #[test]
    fn patient_changes_send_only_the_fields_given() {
        let changes = PatientChanges {
            phone: Some("555-0100".into()),
            ..PatientChanges::default()
        };
        let variables = ops::update_patient::Variables {
            id: "pat_1".into(),
            input: convert(&changes).unwrap(),
        };

        let body = serde_json::to_value(ops::UpdatePatient::build_query(variables)).unwrap();

        assert_eq!(body["variables"]["input"], json!({"phone": "555-0100"}));
    }

    #[test]
    fn backoff_doubles() {
        assert_eq!(backoff(1), Duration::from_millis(200));
        assert_eq!(backoff(2), Duration::from_millis(400));
    }

    #[test]
    fn operation_files_repeat_the_shared_fragments_verbatim() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphql");
        let shared = std::fs::read_to_string(dir.join("fragments.graphql")).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for block in text.split("\n\n").filter(|b| b.starts_with("fragment ")) {
                assert!(
                    shared.contains(block.trim_end()),
                    "fragment differs: {block}"
                );
            }
        }
    }

    #[tokio::test]
    async fn all_pages_follows_cursors_to_the_end() {
        let pages = |req: PageRequest| async move {
            Ok(match req.after.as_deref() {
                None => Page {
                    items: vec![1, 2],
                    next_cursor: Some("a".into()),
                },
                Some("a") => Page {
                    items: vec![3],
                    next_cursor: None,
                },
                Some(_) => unreachable!(),
            })
        };

        let all = all_pages(2, pages).await.unwrap();

        assert_eq!(all, vec![1, 2, 3]);
    }
}
