// The typed bridge to the Rust commands. Every call goes through one typed
// `call` over one transport (Tauri's IPC in the app, a fake in tests): the
// command names, arguments and results come from the generated `Commands` map,
// so a command name is written nowhere else. Every failure is a CommandError.
import type {
  ActionId,
  BenefitEdit,
  ClinicalEdit,
  CommandError,
  Commands,
  CreateKey,
  DraftForm,
  EnvironmentInput,
  LinkEvent,
  PatientInput,
  PharmacySearch,
  RetryEvent,
  SessionEvent,
  SignInEvent,
  SignRequest,
  SigningProgress,
  UpdateProgress,
} from '../bindings/ipc';
import { EVENT_OPEN_LINK, EVENT_RETRY, EVENT_SESSION, EVENT_SIGN_IN, EVENT_SIGNING, EVENT_UPDATE } from '../bindings/ipc';

export type Unlisten = () => void;

export interface Transport {
  invoke<T>(command: string, args?: Record<string, unknown>): Promise<T>;
  listen<T>(event: string, handler: (payload: T) => void): Promise<Unlisten>;
}

let transport: Transport | null = null;

/** Tests (and main.ts) choose the transport. */
export function setTransport(t: Transport): void {
  transport = t;
}

const KINDS = new Set([
  'signedOut',
  'refused',
  'invalid',
  'notFound',
  'network',
  'server',
  'protocol',
  'cancelled',
  'app',
]);

export function isCommandError(e: unknown): e is CommandError {
  return (
    typeof e === 'object' &&
    e !== null &&
    'kind' in e &&
    KINDS.has(String((e as { kind: unknown }).kind))
  );
}

/** Whatever was thrown, as a CommandError. */
export function toCommandError(e: unknown): CommandError {
  if (isCommandError(e)) return e;
  return { kind: 'app', message: e instanceof Error ? e.message : String(e) };
}

/** The id of the user action a command runs for, or none. */
type Action = ActionId | null;

export type CommandName = keyof Commands;
export type Args<K extends CommandName> = Commands[K]['args'];
export type Result<K extends CommandName> = Commands[K]['result'];

/** The one way to run a command: its name, its arguments, its result, all typed. */
export async function call<K extends CommandName>(name: K, args: Args<K>): Promise<Result<K>> {
  if (!transport) throw toCommandError('The app is not connected to its backend.');
  try {
    return await transport.invoke<Result<K>>(name, args as Record<string, unknown>);
  } catch (e) {
    throw toCommandError(e);
  }
}

export const api = {
  appStatus: () => call('app_status', {}),
  selectEnvironment: (id: string) => call('select_environment', { id }),
  saveEnvironment: (input: EnvironmentInput) => call('save_environment', { input }),
  removeEnvironment: (id: string) => call('remove_environment', { id }),
  checkNetwork: () => call('check_network', {}),
  signIn: (thisRunOnly = false) => call('sign_in', { thisRunOnly }),
  cancelSignIn: () => call('cancel_sign_in', {}),
  openSignInAgain: () => call('open_sign_in_again', {}),
  signOut: () => call('sign_out', {}),
  lockSession: () => call('lock_session', {}),
  noteActivity: () => call('note_activity', {}),
  // Commands that reach the network take the id of the user action they run
  // for (`action`: its retries are reported under it, and `cancelAction` stops
  // it where that is safe); a create takes the key kept with its form.
  workLists: (action: Action = null) => call('work_lists', { action }),
  openOrders: (action: Action = null) => call('open_orders', { action }),
  openLink: (text: string) => call('open_link', { text }),
  cancelAction: (action: ActionId) => call('cancel_action', { action }),
  findPatients: (query: string, action: Action = null) => call('find_patients', { action, query }),
  getPatient: (id: string, action: Action = null) => call('get_patient', { action, id }),
  savePatient: (id: string | null, input: PatientInput, action: Action = null) =>
    call('save_patient', { action, id, input }),
  editClinical: (id: string, edit: ClinicalEdit, action: Action = null) =>
    call('edit_clinical', { action, id, edit }),
  editBenefits: (id: string, edit: BenefitEdit, action: Action = null) =>
    call('edit_benefits', { action, id, edit }),
  findPreferredPharmacy: (id: string, search: PharmacySearch, action: Action = null) =>
    call('find_preferred_pharmacy', { action, id, search }),
  choosePreferredPharmacy: (id: string, pharmacyId: string, action: Action = null) =>
    call('choose_preferred_pharmacy', { action, id, pharmacyId }),
  patientWork: (id: string, action: Action = null) => call('patient_work', { action, id }),
  lookUpDrug: (query: string, action: Action = null) => call('look_up_drug', { action, query }),
  lookUpDiagnosis: (query: string, action: Action = null) => call('look_up_diagnosis', { action, query }),
  findTemplates: (query: string) => call('find_templates', { query }),
  getPrescription: (id: string, action: Action = null) => call('get_prescription', { action, id }),
  saveDraft: (patientId: string, id: string | null, key: CreateKey, form: DraftForm, action: Action = null) =>
    call('save_draft', { action, patientId, id, key, form }),
  prescribeAgain: (id: string, key: CreateKey, action: Action = null) => call('prescribe_again', { action, id, key }),
  signPrescriptions: (items: SignRequest[], action: Action = null) =>
    call('sign_prescriptions', { action, items }),
  getOrder: (id: string, action: Action = null) => call('get_order', { action, id }),
  draftOrder: (patientId: string, prescriptionIds: string[], key: CreateKey, action: Action = null) =>
    call('draft_order', { action, patientId, prescriptionIds, key }),
  changeOrderPrescriptions: (id: string, add: string[], remove: string[], action: Action = null) =>
    call('change_order_prescriptions', { action, id, add, remove }),
  findPharmacies: (orderId: string, search: PharmacySearch, action: Action = null) =>
    call('find_pharmacies', { action, orderId, search }),
  choosePharmacy: (orderId: string, pharmacyId: string | null, action: Action = null) =>
    call('choose_pharmacy', { action, orderId, pharmacyId }),
  sendOrder: (id: string, action: Action = null) => call('send_order', { action, id }),
  cancelOrder: (id: string, action: Action = null) => call('cancel_order', { action, id }),
  updateStatus: () => call('update_status', {}),
  checkForUpdate: () => call('check_for_update', {}),
  installUpdate: () => call('install_update', {}),
};

function listen<T>(event: string, handler: (payload: T) => void): Promise<Unlisten> {
  if (!transport) return Promise.resolve(() => {});
  return transport.listen<T>(event, handler);
}

export const onSignIn = (handler: (e: SignInEvent) => void) => listen(EVENT_SIGN_IN, handler);
export const onSession = (handler: (e: SessionEvent) => void) => listen(EVENT_SESSION, handler);
export const onSigning = (handler: (e: SigningProgress) => void) => listen(EVENT_SIGNING, handler);
export const onOpenLink = (handler: (e: LinkEvent) => void) => listen(EVENT_OPEN_LINK, handler);
export const onUpdate = (handler: (e: UpdateProgress) => void) => listen(EVENT_UPDATE, handler);
export const onRetry = (handler: (e: RetryEvent) => void) => listen(EVENT_RETRY, handler);
