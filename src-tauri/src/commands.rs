//! The `#[tauri::command]`s: one list, [`commands!`], a few lines each handing
//! over to [`AppCore`] (or to the state a command names instead, as the update
//! commands name [`crate::updates::Updates`]). The same list registers the handlers and generates the
//! TypeScript map of names, arguments and results (`ui/src/bindings/ipc.ts`), so
//! a command's name is written once here and once in `command_names.rs` (which
//! `build.rs` needs before this crate exists; a test keeps the two equal). It
//! also makes [`args`], each command's arguments as one typed struct (what the
//! command tests call with).

include!("command_names.rs");

use std::sync::Arc;

use tauri::{AppHandle, Emitter, Runtime, State};
use ts_rs::TS;

use crate::core::{AppCore, Notifier, Safety};
use crate::ipc::*;

type Core<'a> = State<'a, Arc<AppCore>>;
type Updates<'a> = State<'a, crate::updates::Updates>;
type Answer<T> = Result<T, CommandError>;

/// Sends core events to the webview.
pub struct TauriNotifier<R: Runtime>(pub AppHandle<R>);

impl<R: Runtime> std::fmt::Debug for TauriNotifier<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TauriNotifier")
    }
}

impl<R: Runtime> TauriNotifier<R> {
    fn emit<T: serde::Serialize + Clone>(&self, event: &str, payload: T) {
        if let Err(e) = self.0.emit(event, payload) {
            tracing::warn!(error = %e, event, "event not delivered");
        }
    }
}

impl<R: Runtime> Notifier for TauriNotifier<R> {
    fn sign_in(&self, event: SignInEvent) {
        self.emit(EVENT_SIGN_IN, event);
    }
    fn session(&self, event: SessionEvent) {
        self.emit(EVENT_SESSION, event);
    }
    fn signing(&self, progress: SigningProgress) {
        self.emit(EVENT_SIGNING, progress);
    }
    fn open_link(&self, event: LinkEvent) {
        self.emit(EVENT_OPEN_LINK, event);
    }
    fn retry(&self, event: RetryEvent) {
        self.emit(EVENT_RETRY, event);
    }
}

/// What an action does, for merging identical runs in flight: the command's
/// name and its arguments (a create's key among them).
fn identity(command: &str, args: &impl serde::Serialize) -> String {
    match serde_json::to_string(args) {
        Ok(args) => format!("{command} {args}"),
        // Plain IPC shapes always serialize; if one ever did not, this run
        // merges with nothing rather than with another of different arguments.
        Err(_) => {
            static ALONE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = ALONE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            format!("{command} #{n}")
        }
    }
}

/// `snake_case` → `camelCase`, as Tauri names command arguments in JavaScript.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The arguments of one command (a struct of [`args`]): which command they
/// are for, and what it answers when it succeeds.
pub trait CommandArgs: serde::Serialize {
    /// The command's name, as the UI invokes it.
    const NAME: &'static str;
    /// The command's result.
    type Output;
}

/// The state a command works on: the core unless the command names another.
macro_rules! state_type {
    () => { Core<'_> };
    ($state:ty) => { $state };
}

macro_rules! commands {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident($core:ident $(: $state:ty)? $(, $arg:ident: $ty:ty)*) -> $out:ty $body:block
    )*) => {
        $(
            $(#[doc = $doc])*
            #[tauri::command]
            pub async fn $name($core: state_type!($($state)?) $(, $arg: $ty)*) -> Answer<$out> $body
        )*

        /// Registers every command on `builder`.
        pub fn register<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
            builder.invoke_handler(tauri::generate_handler![$($name),*])
        }

        /// The commands registered, in order.
        pub const REGISTERED: &[&str] = &[$(stringify!($name)),*];

        /// Each command's arguments as one struct named as the command, made
        /// from this same list: `args::save_patient { action, id, input }`.
        /// Serialized, it is the JSON object the UI's `invoke` sends (camelCase
        /// keys, as Tauri names arguments), so the tests call commands with it —
        /// a missing or misspelled argument does not compile, and a parameter
        /// added to a command is a field every caller must fill. `Debug` names
        /// the command only: arguments carry patient data.
        pub mod args {
            #![allow(non_camel_case_types)]
            use super::*;
            $(
                #[doc = concat!("The arguments of [`", stringify!($name), "`](super::", stringify!($name), ").")]
                #[derive(Clone, serde::Serialize)]
                #[serde(rename_all = "camelCase")]
                pub struct $name { $(pub $arg: $ty),* }

                impl std::fmt::Debug for $name {
                    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.debug_struct(stringify!($name)).finish_non_exhaustive()
                    }
                }

                impl CommandArgs for $name {
                    const NAME: &'static str = stringify!($name);
                    type Output = $out;
                }
            )*
        }

        /// The TypeScript map `Commands`: each command's arguments and result.
        pub fn typescript_commands() -> String {
            let cfg = ts_rs::Config::default();
            let mut out = String::from("export interface Commands {\n");
            $(
                let args: Vec<String> = vec![$(format!(
                    "{}: {}",
                    camel(stringify!($arg)),
                    <$ty as TS>::name(&cfg)
                )),*];
                out.push_str(&format!(
                    "  {}: {{ args: {{ {} }}; result: {} }};\n",
                    stringify!($name),
                    args.join("; "),
                    <$out as TS>::name(&cfg),
                ));
            )*
            out.push('}');
            out
        }
    };
}

commands! {
    /// Environments, the active one, who is signed in, where the session lives.
    fn app_status(core) -> AppStatus { Ok(core.status().await) }
    fn select_environment(core, id: String) -> AppStatus { core.select_environment(&id).await }
    fn save_environment(core, input: EnvironmentInput) -> AppStatus {
        core.save_environment(&input).await
    }
    fn remove_environment(core, id: String) -> AppStatus { core.remove_environment(&id).await }
    /// Whether the active network speaks what the app sends (cached per environment).
    fn check_network(core) -> NetworkCheck { core.check_network().await }

    /// `this_run_only`: the user chose to sign in although the keyring cannot
    /// keep the session (it is then kept in memory until the app closes).
    fn sign_in(core, this_run_only: Option<bool>) -> () {
        if this_run_only == Some(true) {
            core.keep_session_in_memory();
        }
        core.inner().start_sign_in().await
    }
    fn cancel_sign_in(core) -> () {
        core.cancel_sign_in().await;
        Ok(())
    }
    fn open_sign_in_again(core) -> () { core.open_sign_in_again().await }
    /// Ends the session: forgotten here, revoked at the network; says what did not work.
    fn sign_out(core) -> SignOutSummary { core.sign_out().await }
    /// Ends the session after the UI saw no input for the idle time (or on Lock).
    fn lock_session(core) -> SignOutSummary { core.lock_session().await }
    /// The UI saw input (sent at most every few seconds): the idle time starts
    /// again, unless it had passed — then the session ends (`SignedOut`).
    fn note_activity(core) -> () { core.note_activity().await }

    /// Recent patients, drafts awaiting signature, open orders.
    fn work_lists(core, action: Option<ActionId>) -> WorkLists {
        core.act(action, Safety::Read, String::new, core.work_lists()).await
    }
    /// The open orders alone, fetched live: Work refreshes them (at most once
    /// a minute) to show what happened at the pharmacy.
    fn open_orders(core, action: Option<ActionId>) -> Vec<OrderView> {
        core.act(action, Safety::Read, String::new, core.open_orders()).await
    }
    /// Where a `rxdesk://` link or a typed id leads (it only navigates).
    fn open_link(core, text: String) -> LinkTarget {
        let _ = core;
        crate::links::parse(&text)
    }
    /// Stops a running read, search or create (see `Safety`); `false` when it
    /// had ended already or is a change, which runs to its end.
    fn cancel_action(core, action: ActionId) -> bool { Ok(core.cancel_action(&action)) }

    /// Candidates for a name (never picked automatically; never creates anyone).
    fn find_patients(core, action: Option<ActionId>, query: String) -> Vec<PatientSummary> {
        core.act(action, Safety::Read, String::new, core.find_patients(&query)).await
    }
    fn get_patient(core, action: Option<ActionId>, id: String) -> PatientRecord {
        core.act(action, Safety::Read, String::new, core.get_patient(&id)).await
    }
    /// Adds a patient (the network matches first, so a repeat finds the same
    /// person) or changes one's demographics.
    fn save_patient(core, action: Option<ActionId>, id: Option<String>, input: PatientInput) -> PatientOutcome {
        let safety = if id.is_none() { Safety::Create } else { Safety::Change };
        let same = || identity("save_patient", &(&id, &input));
        core.act(action, safety, same, core.save_patient(id.as_deref(), &input)).await
    }
    fn edit_clinical(core, action: Option<ActionId>, id: String, edit: ClinicalEdit) -> PatientOutcome {
        let same = || identity("edit_clinical", &(&id, &edit));
        core.act(action, Safety::Change, same, core.edit_clinical(&id, &edit)).await
    }
    /// Adds, corrects or removes an insurance card.
    fn edit_benefits(core, action: Option<ActionId>, id: String, edit: BenefitEdit) -> PatientOutcome {
        let same = || identity("edit_benefits", &(&id, &edit));
        core.act(action, Safety::Change, same, core.edit_benefits(&id, &edit)).await
    }
    /// The orders' pharmacy search for the patient's preferred pharmacy (one
    /// that fits is set; several are options).
    fn find_preferred_pharmacy(core, action: Option<ActionId>, id: String, search: PharmacySearch) -> PreferredPharmacyAnswer {
        core.act(action, Safety::Read, String::new, core.find_preferred_pharmacy(&id, &search)).await
    }
    fn choose_preferred_pharmacy(core, action: Option<ActionId>, id: String, pharmacy_id: String) -> PatientOutcome {
        let same = || identity("choose_preferred_pharmacy", &(&id, &pharmacy_id));
        core.act(action, Safety::Change, same, core.choose_preferred_pharmacy(&id, &pharmacy_id)).await
    }
    /// The patient's drafts and orders this workstation knows, fetched live.
    fn patient_work(core, action: Option<ActionId>, id: String) -> PatientWork {
        core.act(action, Safety::Read, String::new, core.patient_work(&id)).await
    }

    /// The catalog's drugs for what was typed (nothing is created).
    fn look_up_drug(core, action: Option<ActionId>, query: String) -> Vec<ChoiceView> {
        core.act(action, Safety::Read, String::new, core.look_up_drug(&query)).await
    }
    /// The catalog's ICD-10 diagnoses for what was typed (nothing is created).
    fn look_up_diagnosis(core, action: Option<ActionId>, query: String) -> Vec<ChoiceView> {
        core.act(action, Safety::Read, String::new, core.look_up_diagnosis(&query)).await
    }
    /// The templates drafted from at this workstation whose names fit what was
    /// typed (the local index only: no network call).
    fn find_templates(core, query: String) -> Vec<TemplateView> { core.find_templates(&query).await }
    fn get_prescription(core, action: Option<ActionId>, id: String) -> PrescriptionView {
        core.act(action, Safety::Read, String::new, core.get_prescription(&id)).await
    }
    /// A new draft for the patient (`id` null), made under `key` — the same
    /// key for every attempt of this action, so a repeat finds the draft an
    /// earlier attempt saved — or changes to a draft (`key` unused).
    fn save_draft(core, action: Option<ActionId>, patient_id: String, id: Option<String>, key: CreateKey, form: DraftForm) -> PrescriptionOutcome {
        let safety = if id.is_none() { Safety::Create } else { Safety::Change };
        let same = || identity("save_draft", &(&patient_id, &id, &key, &form));
        core.act(action, safety, same, core.save_draft(&patient_id, id.as_deref(), &key, &form)).await
    }
    /// "Prescribe again": a new draft from the signed prescription `id` (its
    /// drug, sig, dispense and diagnoses), made under `key`, screened afresh; never signed.
    fn prescribe_again(core, action: Option<ActionId>, id: String, key: CreateKey) -> PrescriptionOutcome {
        let same = || identity("prescribe_again", &(&id, &key));
        core.act(action, Safety::Create, same, core.prescribe_again(&id, &key)).await
    }
    /// Signs each draft with the content hash that was shown; one result each, in order.
    fn sign_prescriptions(core, action: Option<ActionId>, items: Vec<SignRequest>) -> Vec<SignResult> {
        let same = || identity("sign_prescriptions", &items);
        core.act(action, Safety::Change, same, core.sign_prescriptions(&items)).await
    }

    fn get_order(core, action: Option<ActionId>, id: String) -> OrderView {
        core.act(action, Safety::Read, String::new, core.get_order(&id)).await
    }
    /// A new draft order for the patient with these prescriptions, made under
    /// `key` (the same for every attempt of this action).
    fn draft_order(core, action: Option<ActionId>, patient_id: String, prescription_ids: Vec<String>, key: CreateKey) -> OrderOutcome {
        let same = || identity("draft_order", &(&patient_id, &prescription_ids, &key));
        core.act(action, Safety::Create, same, core.draft_order(&patient_id, &prescription_ids, &key)).await
    }
    fn change_order_prescriptions(core, action: Option<ActionId>, id: String, add: Vec<String>, remove: Vec<String>) -> OrderOutcome {
        let same = || identity("change_order_prescriptions", &(&id, &add, &remove));
        core.act(action, Safety::Change, same, core.change_order_prescriptions(&id, &add, &remove)).await
    }
    fn find_pharmacies(core, action: Option<ActionId>, order_id: String, search: PharmacySearch) -> PharmacyAnswer {
        core.act(action, Safety::Read, String::new, core.find_pharmacies(&order_id, &search)).await
    }
    /// Chooses a pharmacy by id, or (`null`) leaves the choice to the patient.
    fn choose_pharmacy(core, action: Option<ActionId>, order_id: String, pharmacy_id: Option<String>) -> OrderOutcome {
        let same = || identity("choose_pharmacy", &(&order_id, &pharmacy_id));
        core.act(action, Safety::Change, same, core.choose_pharmacy(&order_id, pharmacy_id.as_deref())).await
    }
    fn send_order(core, action: Option<ActionId>, id: String) -> OrderOutcome {
        let same = || identity("send_order", &id);
        core.act(action, Safety::Change, same, core.send_order(&id)).await
    }
    fn cancel_order(core, action: Option<ActionId>, id: String) -> OrderOutcome {
        let same = || identity("cancel_order", &id);
        core.act(action, Safety::Change, same, core.cancel_order(&id)).await
    }

    /// Whether this build updates itself, or why not (IT policy, no release key).
    fn update_status(updates: Updates<'_>) -> UpdatesStatus { Ok(updates.status()) }
    /// Asks the release server for a newer version; downloads nothing.
    fn check_for_update(updates: Updates<'_>) -> UpdateCheck { Ok(updates.check().await?) }
    /// Downloads the version found (progress events), verifies its signature,
    /// installs it and restarts: only ever on the user's click.
    fn install_update(updates: Updates<'_>) -> () { Ok(updates.install().await?) }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::{COMMANDS, REGISTERED};

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
    fn the_build_scripts_list_names_exactly_the_registered_commands() {
        assert_eq!(REGISTERED, COMMANDS);
    }

    #[test]
    fn a_commands_arguments_debug_as_its_name_alone_never_the_patient_data() {
        let args = super::args::find_patients {
            action: None,
            query: "Rosa Delgado".into(),
        };

        assert_eq!(format!("{args:?}"), "find_patients { .. }");
    }

    #[test]
    fn a_commands_arguments_serialize_as_the_ui_sends_them() {
        let args = super::args::draft_order {
            action: None,
            patient_id: "pat_1".into(),
            prescription_ids: vec!["rx_1".into()],
            key: crate::ipc::CreateKey("k-1".into()),
        };

        assert_eq!(
            serde_json::to_value(&args).unwrap(),
            serde_json::json!({"action": null, "patientId": "pat_1", "prescriptionIds": ["rx_1"], "key": "k-1"})
        );
    }
}
