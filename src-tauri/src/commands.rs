//! The `#[tauri::command]`s: a few lines each, handing over to [`AppCore`].
//! [`COMMANDS`] lists them for the capability file and `build.rs`.

include!("command_names.rs");

use std::sync::Arc;

use tauri::{AppHandle, Emitter, Runtime, State};

use crate::core::{AppCore, Notifier};
use crate::ipc::{
    AppStatus, CommandError, EVENT_SESSION, EVENT_SIGN_IN, EnvironmentInput, Medication, Order,
    OrderInput, Page, Patient, PatientDetail, PatientInput, Pharmacy, Prescription,
    PrescriptionInput, SessionEvent, SignInEvent, SignOutcome,
};

type Core<'a> = State<'a, Arc<AppCore>>;
type Answer<T> = Result<T, CommandError>;

/// Sends core events to the webview.
pub struct TauriNotifier<R: Runtime>(pub AppHandle<R>);

impl<R: Runtime> std::fmt::Debug for TauriNotifier<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TauriNotifier")
    }
}

impl<R: Runtime> Notifier for TauriNotifier<R> {
    fn sign_in(&self, event: SignInEvent) {
        if let Err(e) = self.0.emit(EVENT_SIGN_IN, event) {
            tracing::warn!(error = %e, "sign-in event not delivered");
        }
    }
    fn session(&self, event: SessionEvent) {
        if let Err(e) = self.0.emit(EVENT_SESSION, event) {
            tracing::warn!(error = %e, "session event not delivered");
        }
    }
}

#[tauri::command]
pub async fn app_status(core: Core<'_>) -> Answer<AppStatus> {
    Ok(core.status().await)
}

#[tauri::command]
pub async fn select_environment(core: Core<'_>, id: String) -> Answer<AppStatus> {
    core.select_environment(&id).await
}

#[tauri::command]
pub async fn save_environment(core: Core<'_>, input: EnvironmentInput) -> Answer<AppStatus> {
    core.save_environment(&input).await
}

#[tauri::command]
pub async fn remove_environment(core: Core<'_>, id: String) -> Answer<AppStatus> {
    core.remove_environment(&id).await
}

#[tauri::command]
pub async fn sign_in(core: Core<'_>) -> Answer<()> {
    core.inner().start_sign_in().await
}

#[tauri::command]
pub async fn cancel_sign_in(core: Core<'_>) -> Answer<()> {
    core.cancel_sign_in().await;
    Ok(())
}

#[tauri::command]
pub async fn open_sign_in_again(core: Core<'_>) -> Answer<()> {
    core.open_sign_in_again().await
}

#[tauri::command]
pub async fn sign_out(core: Core<'_>) -> Answer<()> {
    core.sign_out().await
}

#[tauri::command]
pub async fn search_patients(
    core: Core<'_>,
    query: String,
    after: Option<String>,
) -> Answer<Page<Patient>> {
    core.search_patients(&query, after).await
}

#[tauri::command]
pub async fn get_patient(core: Core<'_>, id: String) -> Answer<PatientDetail> {
    core.patient_detail(&id).await
}

#[tauri::command]
pub async fn create_patient(core: Core<'_>, input: PatientInput) -> Answer<Patient> {
    core.create_patient(&input).await
}

#[tauri::command]
pub async fn update_patient(core: Core<'_>, id: String, input: PatientInput) -> Answer<Patient> {
    core.update_patient(&id, &input).await
}

#[tauri::command]
pub async fn search_medications(core: Core<'_>, query: String) -> Answer<Vec<Medication>> {
    core.search_medications(&query).await
}

#[tauri::command]
pub async fn create_prescription(core: Core<'_>, input: PrescriptionInput) -> Answer<Prescription> {
    core.create_prescription(&input).await
}

#[tauri::command]
pub async fn cancel_prescription(core: Core<'_>, id: String) -> Answer<Prescription> {
    core.cancel_prescription(&id).await
}

#[tauri::command]
pub async fn signing_queue(core: Core<'_>) -> Answer<Vec<Prescription>> {
    core.signing_queue().await
}

#[tauri::command]
pub async fn sign_prescriptions(core: Core<'_>, ids: Vec<String>) -> Answer<Vec<SignOutcome>> {
    core.sign_prescriptions(&ids).await
}

#[tauri::command]
pub async fn search_pharmacies(core: Core<'_>, query: String) -> Answer<Vec<Pharmacy>> {
    core.search_pharmacies(&query).await
}

#[tauri::command]
pub async fn create_order(core: Core<'_>, input: OrderInput) -> Answer<Order> {
    core.create_order(&input).await
}

#[tauri::command]
pub async fn send_order(core: Core<'_>, id: String) -> Answer<Order> {
    core.send_order(&id).await
}

#[tauri::command]
pub async fn cancel_order(core: Core<'_>, id: String) -> Answer<Order> {
    core.cancel_order(&id).await
}

/// Registers every command on `builder`.
pub fn register<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder.invoke_handler(tauri::generate_handler![
        app_status,
        select_environment,
        save_environment,
        remove_environment,
        sign_in,
        cancel_sign_in,
        open_sign_in_again,
        sign_out,
        search_patients,
        get_patient,
        create_patient,
        update_patient,
        search_medications,
        create_prescription,
        cancel_prescription,
        signing_queue,
        sign_prescriptions,
        search_pharmacies,
        create_order,
        send_order,
        cancel_order,
    ])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::COMMANDS;

    #[test]
    fn the_capability_grants_exactly_the_apps_commands_and_event_listening() {
        let text = include_str!("../capabilities/default.json");
        let capability: serde_json::Value = serde_json::from_str(text).unwrap();
        let granted: Vec<&str> = capability["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        let mut expected = vec!["core:event:allow-listen", "core:event:allow-unlisten"];
        let commands: Vec<String> = COMMANDS
            .iter()
            .map(|c| format!("allow-{}", c.replace('_', "-")))
            .collect();
        expected.extend(commands.iter().map(String::as_str));
        assert_eq!(granted, expected);
        assert_eq!(capability["windows"], serde_json::json!(["main"]));
    }

    #[test]
    fn every_command_the_acl_knows_is_registered_as_a_handler() {
        let source = include_str!("commands.rs");
        let handlers = source
            .split("generate_handler![")
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .unwrap();
        let registered: Vec<&str> = handlers
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        assert_eq!(registered, COMMANDS);
    }
}
