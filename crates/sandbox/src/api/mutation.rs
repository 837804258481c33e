//! The mutations. Each one reads as: permission (checked before any lookup, so a
//! refusal never reveals whether a record exists) → input validation → its state
//! change in one store transaction → the store's outcome as the answer. Refusals
//! and rejected input are answered as `UnauthorizedError` / `ValidationError`
//! members of the result union (built from [`Refusal`] / [`Invalid`] by `From`,
//! see `types.rs`); only internal failures become GraphQL errors.

use std::future::Future;

use async_graphql::{Context, ID, MaybeUndefined, Object};
use time::Duration;

use super::errors::{ApiError, Caller, Invalid, Permission, Refusal, codes, parts};
use super::trace::{Outcome, traced_result};
use super::types::{
    AddressInput, CreateOrderInput, CreatePatientInput, CreatePrescriptionInput, Order,
    OrderResult, Patient, PatientResult, Prescription, PrescriptionResult, UpdatePatientInput,
};
use super::validate::{self, AddressParts, MAX_SHORT, MAX_TEXT};
use crate::store::orders::{
    CancelOutcome as OrderCancel, CreateOutcome as OrderCreate, NewOrder, SendOutcome,
};
use crate::store::patients::{NewPatient, PatientChanges};
use crate::store::prescriptions::{
    CancelOutcome as RxCancel, CreateOutcome as RxCreate, NewPrescription, Prescriber, SignOutcome,
};
use crate::store::{self, Db, StoreError};

/// Most ids `signPrescriptions` takes at once.
pub const MAX_BATCH: usize = 100;
/// Most fills one order may have.
pub const MAX_FILLS: usize = 50;

/// The root of all mutations.
#[derive(Debug, Default)]
pub struct Mutation;

/// Why a mutation ends early: with its answer `R` (a refusal or a rejected input,
/// which `?` turns into the result union's member) or with an internal failure.
enum Stop<R> {
    Answer(R),
    Failed(ApiError),
}

impl<R> From<ApiError> for Stop<R> {
    fn from(e: ApiError) -> Self {
        Self::Failed(e)
    }
}

impl<R> From<StoreError> for Stop<R> {
    fn from(e: StoreError) -> Self {
        Self::Failed(e.into())
    }
}

impl<R: From<Refusal>> From<Refusal> for Stop<R> {
    fn from(r: Refusal) -> Self {
        Self::Answer(r.into())
    }
}

impl<R: From<Invalid>> From<Invalid> for Stop<R> {
    fn from(i: Invalid) -> Self {
        Self::Answer(i.into())
    }
}

/// Runs a mutation under its span (`trace.rs`); an early answer is its result.
async fn mutation<R: Outcome>(
    op: &'static str,
    body: impl Future<Output = Result<R, Stop<R>>>,
) -> async_graphql::Result<R> {
    traced_result(op, async {
        match body.await {
            Ok(answer) | Err(Stop::Answer(answer)) => Ok(answer),
            Err(Stop::Failed(e)) => Err(e),
        }
    })
    .await
}

/// Refuses with `code` unless the caller holds `permission`: "not authorized to
/// `action`: the token lacks `permission`".
fn require(
    caller: &Caller,
    permission: Permission,
    code: &'static str,
    action: &str,
) -> Result<(), Refusal> {
    if caller.has(permission) {
        Ok(())
    } else {
        Err(Refusal::lacking(code, action, permission))
    }
}

fn address_parts(a: &AddressInput) -> AddressParts<'_> {
    AddressParts {
        street1: &a.street1,
        street2: a.street2.as_deref(),
        city: &a.city,
        state: &a.state,
        postal_code: &a.postal_code,
        country: a.country.as_deref(),
    }
}

fn name_parts(
    first: &str,
    middle: Option<&str>,
    last: &str,
) -> Result<(String, Option<String>, String), Invalid> {
    Ok((
        validate::required("name.first", first, MAX_SHORT)?,
        validate::optional("name.middle", middle, MAX_SHORT)?,
        validate::required("name.last", last, MAX_SHORT)?,
    ))
}

fn new_patient(input: CreatePatientInput) -> Result<NewPatient, Invalid> {
    let external_id = validate::external_id(input.external_id.as_deref())?;
    let (first_name, middle_name, last_name) = name_parts(
        &input.name.first,
        input.name.middle.as_deref(),
        &input.name.last,
    )?;
    let date_of_birth = validate::birth_date("dateOfBirth", &input.date_of_birth)?;
    let gender = validate::optional("gender", input.gender.as_deref(), MAX_SHORT)?;
    let email = validate::optional("email", input.email.as_deref(), MAX_SHORT)?
        .map(|e| validate::email("email", &e))
        .transpose()?;
    let phone = validate::optional("phone", input.phone.as_deref(), MAX_SHORT)?
        .map(|p| validate::phone("phone", &p))
        .transpose()?;
    let address = input
        .address
        .as_ref()
        .map(|a| validate::address("address", address_parts(a)))
        .transpose()?;
    Ok(NewPatient {
        external_id,
        first_name,
        middle_name,
        last_name,
        date_of_birth,
        sex: input.sex.as_str().to_owned(),
        gender,
        email,
        phone,
        address,
    })
}

/// `None` for absent, `Some(None)` for null (or blank), `Some(Some(v))` for a value.
fn clearable<T, R>(
    value: MaybeUndefined<T>,
    check: impl FnOnce(T) -> Result<Option<R>, Invalid>,
) -> Result<Option<Option<R>>, Invalid> {
    match value {
        MaybeUndefined::Undefined => Ok(None),
        MaybeUndefined::Null => Ok(Some(None)),
        MaybeUndefined::Value(v) => check(v).map(Some),
    }
}

fn patient_changes(input: UpdatePatientInput) -> Result<PatientChanges, Invalid> {
    let name = input
        .name
        .map(|n| name_parts(&n.first, n.middle.as_deref(), &n.last))
        .transpose()?;
    let date_of_birth = input
        .date_of_birth
        .map(|d| validate::birth_date("dateOfBirth", &d))
        .transpose()?;
    let gender = clearable(input.gender, |g| {
        validate::optional("gender", Some(&g), MAX_SHORT)
    })?;
    let email = clearable(input.email, |e| {
        validate::optional("email", Some(&e), MAX_SHORT)?
            .map(|e| validate::email("email", &e))
            .transpose()
    })?;
    let phone = clearable(input.phone, |p| {
        validate::optional("phone", Some(&p), MAX_SHORT)?
            .map(|p| validate::phone("phone", &p))
            .transpose()
    })?;
    let address = clearable(input.address, |a| {
        validate::address("address", address_parts(&a)).map(Some)
    })?;
    Ok(PatientChanges {
        name,
        date_of_birth,
        sex: input.sex.map(|s| s.as_str().to_owned()),
        gender,
        email,
        phone,
        address,
    })
}

fn new_prescription(input: CreatePrescriptionInput) -> Result<NewPrescription, Invalid> {
    let external_id = validate::external_id(input.external_id.as_deref())?;
    let patient_id = validate::required("patientId", &input.patient_id, MAX_SHORT)?;
    let treatment_id = validate::required("treatmentId", &input.treatment_id, MAX_SHORT)?;
    let q = input.dispense_quantity;
    if !q.is_finite() || q <= 0.0 || q > 100_000.0 {
        return Err(Invalid::input(
            "dispenseQuantity",
            "dispenseQuantity must be greater than 0 (and at most 100000)",
        ));
    }
    let dispense_unit = validate::required("dispenseUnit", &input.dispense_unit, MAX_SHORT)?;
    if !(1..=12).contains(&input.fills_allowed) {
        return Err(Invalid::input(
            "fillsAllowed",
            "fillsAllowed must be between 1 and 12 (the first fill plus 0 to 11 refills)",
        ));
    }
    if !(1..=365).contains(&input.days_supply) {
        return Err(Invalid::input(
            "daysSupply",
            "daysSupply must be between 1 and 365",
        ));
    }
    let instructions = validate::required("instructions", &input.instructions, MAX_TEXT)?;
    let notes = validate::optional("notes", input.notes.as_deref(), MAX_TEXT)?;
    let effective = input
        .effective_date
        .as_deref()
        .map(|d| validate::date("effectiveDate", d))
        .transpose()?;
    // A prescription is valid for one year from its effective date (or from today).
    let start = effective.unwrap_or_else(|| time::OffsetDateTime::now_utc().date());
    let expiration = start.checked_add(Duration::days(365)).unwrap_or(start);
    Ok(NewPrescription {
        external_id,
        patient_id,
        treatment_id,
        dispense_as_written: input.dispense_as_written.unwrap_or(false),
        dispense_quantity: q,
        dispense_unit,
        fills_allowed: i64::from(input.fills_allowed),
        days_supply: i64::from(input.days_supply),
        instructions,
        notes,
        effective_date: effective.map(|d| d.to_string()),
        expiration_date: Some(expiration.to_string()),
    })
}

fn new_order(input: CreateOrderInput) -> Result<NewOrder, Invalid> {
    let external_id = validate::external_id(input.external_id.as_deref())?;
    let patient_id = validate::required("patientId", &input.patient_id, MAX_SHORT)?;
    if input.fills.is_empty() {
        return Err(Invalid::input("fills", "an order needs at least one fill"));
    }
    if input.fills.len() > MAX_FILLS {
        return Err(Invalid::input(
            "fills",
            format!("an order has at most {MAX_FILLS} fills"),
        ));
    }
    let mut prescription_ids: Vec<String> = Vec::with_capacity(input.fills.len());
    for (i, fill) in input.fills.iter().enumerate() {
        let field = format!("fills[{i}].prescriptionId");
        let id = validate::required(&field, &fill.prescription_id, MAX_SHORT)?;
        if prescription_ids.contains(&id) {
            return Err(Invalid::input(
                field,
                "the same prescription appears twice in the order",
            ));
        }
        prescription_ids.push(id);
    }
    let pharmacy_id = input
        .pharmacy_id
        .as_deref()
        .map(|p| validate::required("pharmacyId", p, MAX_SHORT))
        .transpose()?;
    let address = input
        .address
        .as_ref()
        .map(|a| validate::address("address", address_parts(a)))
        .transpose()?;
    Ok(NewOrder {
        external_id,
        patient_id,
        prescription_ids,
        pharmacy_id,
        address,
    })
}

/// Who signs: a user token with `write:prescription` whose user has an NPI.
/// Checked before any prescription is looked up.
async fn signer(caller: &Caller, db: &Db) -> Result<Result<Prescriber, Refusal>, ApiError> {
    let refusal = |why: &str| {
        Refusal::new(
            codes::PRESCRIPTION_SIGNING_UNAUTHORIZED,
            format!("The caller is not authorized to sign prescriptions: {why}"),
            Permission::WritePrescription,
        )
    };
    if caller.is_machine() {
        return Ok(Err(refusal(
            "machine tokens never sign; a prescriber must sign with a user token",
        )));
    }
    if !caller.has(Permission::WritePrescription) {
        return Ok(Err(refusal("the token lacks write:prescription")));
    }
    let user_id = caller.user_id().unwrap_or_default().to_owned();
    let user = db
        .call(move |conn| store::clinical::user_profile(conn, &user_id))
        .await?;
    Ok(match user {
        Some(store::clinical::UserProfile {
            id,
            name,
            npi: Some(npi),
            ..
        }) => Ok(Prescriber { id, name, npi }),
        _ => Err(refusal("the signing user is not a provider with an NPI")),
    })
}

fn sign_result(outcome: SignOutcome) -> PrescriptionResult {
    match outcome {
        SignOutcome::Signed(p) => PrescriptionResult::Prescription(Prescription(p)),
        SignOutcome::NotFound => Invalid::not_found("id", "no such prescription").into(),
        SignOutcome::NotDraft(p) => Invalid::state(
            codes::PRESCRIPTION_NOT_DRAFT,
            format!(
                "only a DRAFT prescription can be signed; this one is {}",
                p.state
            ),
            Some("id"),
        )
        .into(),
    }
}

#[Object(name = "Mutation")]
impl Mutation {
    /// Adds a patient (`write:patient`). With an `externalId` already used in the
    /// organization, returns that patient instead.
    async fn create_patient(
        &self,
        ctx: &Context<'_>,
        input: CreatePatientInput,
    ) -> async_graphql::Result<PatientResult> {
        mutation("createPatient", async {
            let (caller, db) = parts(ctx)?;
            require(
                caller,
                Permission::WritePatient,
                codes::PATIENT_WRITE_UNAUTHORIZED,
                "add or change patients",
            )?;
            let new = new_patient(input)?;
            let org = caller.org().to_owned();
            let created = db
                .call(move |conn| store::patients::create(conn, &org, new))
                .await?;
            Ok(PatientResult::Patient(Patient::from(created.into_inner())))
        })
        .await
    }

    /// Changes a patient (`write:patient`).
    async fn update_patient(
        &self,
        ctx: &Context<'_>,
        id: ID,
        input: UpdatePatientInput,
    ) -> async_graphql::Result<PatientResult> {
        mutation("updatePatient", async {
            let (caller, db) = parts(ctx)?;
            require(
                caller,
                Permission::WritePatient,
                codes::PATIENT_WRITE_UNAUTHORIZED,
                "add or change patients",
            )?;
            let changes = patient_changes(input)?;
            let org = caller.org().to_owned();
            let updated = db
                .call(move |conn| store::patients::update(conn, &org, &id, changes))
                .await?;
            Ok(match updated {
                Some(p) => PatientResult::Patient(Patient::from(p)),
                None => Invalid::not_found("id", "no such patient").into(),
            })
        })
        .await
    }

    /// Drafts a prescription (`read:prescription`): state `DRAFT`. With an
    /// `externalId` already used in the organization, returns that prescription.
    async fn create_prescription(
        &self,
        ctx: &Context<'_>,
        input: CreatePrescriptionInput,
    ) -> async_graphql::Result<PrescriptionResult> {
        mutation("createPrescription", async {
            let (caller, db) = parts(ctx)?;
            require(
                caller,
                Permission::ReadPrescription,
                codes::PRESCRIPTION_DRAFTING_UNAUTHORIZED,
                "draft prescriptions",
            )?;
            let new = new_prescription(input)?;
            let org = caller.org().to_owned();
            let outcome = db
                .call(move |conn| store::prescriptions::create(conn, &org, new))
                .await?;
            Ok(match outcome {
                RxCreate::Done(created) => {
                    PrescriptionResult::Prescription(Prescription(created.into_inner()))
                }
                RxCreate::PatientNotFound => {
                    Invalid::not_found("patientId", "no such patient in this organization").into()
                }
                RxCreate::TreatmentNotFound => Invalid::not_found(
                    "treatmentId",
                    "treatmentId is not in the medication catalog",
                )
                .into(),
            })
        })
        .await
    }

    /// Signs a draft (`write:prescription`, user tokens of providers only):
    /// `DRAFT` → `ACTIVE`, prescriber and `writtenAt` set.
    async fn sign_prescription(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<PrescriptionResult> {
        mutation("signPrescription", async {
            let (caller, db) = parts(ctx)?;
            // The first `?` stops on an internal failure, the second on a refusal.
            let prescriber = signer(caller, &db).await??;
            let org = caller.org().to_owned();
            let mut outcomes = db
                .call(move |conn| store::prescriptions::sign(conn, &org, &[id.0], &prescriber))
                .await?;
            let outcome = outcomes
                .pop()
                .ok_or(ApiError::Internal("signing returned no outcome"))?;
            Ok(sign_result(outcome))
        })
        .await
    }

    /// One result per id, in the order given (at most 100 ids).
    async fn sign_prescriptions(
        &self,
        ctx: &Context<'_>,
        ids: Vec<ID>,
    ) -> async_graphql::Result<Vec<PrescriptionResult>> {
        traced_result("signPrescriptions", async {
            let (caller, db) = parts(ctx)?;
            let prescriber = match signer(caller, &db).await? {
                Ok(p) => p,
                Err(r) => return Ok(ids.iter().map(|_| r.clone().into()).collect()),
            };
            if ids.len() > MAX_BATCH {
                return Err(ApiError::Invalid(Invalid::input(
                    "ids",
                    format!("at most {MAX_BATCH} prescriptions can be signed at once"),
                )));
            }
            let org = caller.org().to_owned();
            let ids: Vec<String> = ids.into_iter().map(|id| id.0).collect();
            let outcomes = db
                .call(move |conn| store::prescriptions::sign(conn, &org, &ids, &prescriber))
                .await?;
            Ok(outcomes.into_iter().map(sign_result).collect())
        })
        .await
    }

    /// Cancels a prescription: a draft with `read:prescription`, a signed one only
    /// with `write:prescription`. Canceling a canceled prescription returns it.
    async fn cancel_prescription(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<PrescriptionResult> {
        mutation("cancelPrescription", async {
            let (caller, db) = parts(ctx)?;
            require(
                caller,
                Permission::ReadPrescription,
                codes::PRESCRIPTION_CANCELING_UNAUTHORIZED,
                "cancel prescriptions",
            )?;
            let may_cancel_signed =
                !caller.is_machine() && caller.has(Permission::WritePrescription);
            let org = caller.org().to_owned();
            let outcome = db
                .call(move |conn| store::prescriptions::cancel(conn, &org, &id, may_cancel_signed))
                .await?;
            Ok(match outcome {
                RxCancel::Canceled(p) => PrescriptionResult::Prescription(Prescription(p)),
                RxCancel::NotFound => Invalid::not_found("id", "no such prescription").into(),
                RxCancel::SignedNeedsWrite => Refusal::lacking(
                    codes::PRESCRIPTION_CANCELING_UNAUTHORIZED,
                    "cancel signed prescriptions",
                    Permission::WritePrescription,
                )
                .into(),
            })
        })
        .await
    }

    /// Drafts an order (`read:order`): state `DRAFT`. Every prescription must be
    /// the patient's and not canceled. With an `externalId` already used in the
    /// organization, returns that order.
    async fn create_order(
        &self,
        ctx: &Context<'_>,
        input: CreateOrderInput,
    ) -> async_graphql::Result<OrderResult> {
        mutation("createOrder", async {
            let (caller, db) = parts(ctx)?;
            require(
                caller,
                Permission::ReadOrder,
                codes::ORDER_DRAFTING_UNAUTHORIZED,
                "draft orders",
            )?;
            let new = new_order(input)?;
            let org = caller.org().to_owned();
            let outcome = db
                .call(move |conn| store::orders::create(conn, &org, new))
                .await?;
            let fill = |i: usize| format!("fills[{i}].prescriptionId");
            let invalid = match outcome {
                OrderCreate::Done(created) => {
                    return Ok(OrderResult::Order(Order(created.into_inner())));
                }
                OrderCreate::PatientNotFound => {
                    Invalid::not_found("patientId", "no such patient in this organization")
                }
                OrderCreate::PharmacyNotFound => {
                    Invalid::not_found("pharmacyId", "pharmacyId is not a known pharmacy")
                }
                OrderCreate::PrescriptionNotFound(i) => {
                    Invalid::not_found(fill(i), "no such prescription in this organization")
                }
                OrderCreate::PrescriptionOfAnotherPatient(i) => {
                    Invalid::input(fill(i), "the prescription belongs to another patient")
                }
                OrderCreate::PrescriptionCanceled(i) => {
                    Invalid::input(fill(i), "the prescription is canceled")
                }
            };
            Ok(invalid.into())
        })
        .await
    }

    /// Sends a draft order (`write:order`) once every prescription on it is signed:
    /// `DRAFT` → `PLACED`, or `ROUTING` when it has no pharmacy.
    async fn send_order(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<OrderResult> {
        mutation("sendOrder", async {
            let (caller, db) = parts(ctx)?;
            require(
                caller,
                Permission::WriteOrder,
                codes::ORDER_SENDING_UNAUTHORIZED,
                "send orders",
            )?;
            let org = caller.org().to_owned();
            let outcome = db.call(move |conn| store::orders::send(conn, &org, &id)).await?;
            let invalid = match outcome {
                SendOutcome::Sent(o) => return Ok(OrderResult::Order(Order(o))),
                SendOutcome::NotFound => Invalid::not_found("id", "no such order"),
                SendOutcome::NotDraft(o) => Invalid::state(
                    codes::ORDER_NOT_DRAFT,
                    format!("only a DRAFT order can be sent; this one is {}", o.state),
                    Some("id"),
                ),
                SendOutcome::Unsigned(n) => Invalid::state(
                    codes::ORDER_HAS_UNSIGNED_PRESCRIPTIONS,
                    format!("{n} prescription(s) on this order are not signed yet; a prescriber must sign them first"),
                    Some("fills"),
                ),
                SendOutcome::CanceledPrescriptions(n) => Invalid::state(
                    codes::ORDER_HAS_CANCELED_PRESCRIPTIONS,
                    format!("{n} prescription(s) on this order were canceled"),
                    Some("fills"),
                ),
            };
            Ok(invalid.into())
        })
        .await
    }

    /// Cancels an order: a draft with `read:order`, a sent one only with
    /// `write:order`. Canceling a canceled order returns it.
    async fn cancel_order(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<OrderResult> {
        mutation("cancelOrder", async {
            let (caller, db) = parts(ctx)?;
            require(
                caller,
                Permission::ReadOrder,
                codes::ORDER_CANCELING_UNAUTHORIZED,
                "cancel orders",
            )?;
            let may_cancel_sent = caller.has(Permission::WriteOrder);
            let org = caller.org().to_owned();
            let outcome = db
                .call(move |conn| store::orders::cancel(conn, &org, &id, may_cancel_sent))
                .await?;
            Ok(match outcome {
                OrderCancel::Canceled(o) => OrderResult::Order(Order(o)),
                OrderCancel::NotFound => Invalid::not_found("id", "no such order").into(),
                OrderCancel::SentNeedsWrite => Refusal::lacking(
                    codes::ORDER_CANCELING_UNAUTHORIZED,
                    "cancel sent orders",
                    Permission::WriteOrder,
                )
                .into(),
            })
        })
        .await
    }
}
