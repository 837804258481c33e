// The typed bridge to the Rust commands. Every call goes through one typed
// `call` over one transport (Tauri's IPC in the app, a fake in tests): the
// command names, arguments and results come from the generated `Commands` map,
// so a command name is written nowhere else. Every failure is a CommandError.
import type {
  ClinicalEdit,
  CommandError,
  Commands,
  DraftForm,
  EnvironmentInput,
  LinkEvent,
  PatientInput,
  PharmacySearch,
  SessionEvent,
  SignInEvent,
  SignRequest,
  SigningProgress,
  UpdateProgress,
} from '../bindings/ipc';
import { EVENT_OPEN_LINK, EVENT_SESSION, EVENT_SIGN_IN, EVENT_SIGNING, EVENT_UPDATE } from '../bindings/ipc';

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
  signIn: () => call('sign_in', {}),
  cancelSignIn: () => call('cancel_sign_in', {}),
  openSignInAgain: () => call('open_sign_in_again', {}),
  signOut: () => call('sign_out', {}),
  lockSession: () => call('lock_session', {}),
  noteActivity: () => call('note_activity', {}),
  workLists: () => call('work_lists', {}),
  openLink: (text: string) => call('open_link', { text }),
  findPatients: (query: string) => call('find_patients', { query }),
  getPatient: (id: string) => call('get_patient', { id }),
  savePatient: (id: string | null, input: PatientInput) => call('save_patient', { id, input }),
  editClinical: (id: string, edit: ClinicalEdit) => call('edit_clinical', { id, edit }),
  patientWork: (id: string) => call('patient_work', { id }),
  lookUpDrug: (query: string) => call('look_up_drug', { query }),
  getPrescription: (id: string) => call('get_prescription', { id }),
  saveDraft: (patientId: string, id: string | null, form: DraftForm) =>
    call('save_draft', { patientId, id, form }),
  signPrescriptions: (items: SignRequest[]) => call('sign_prescriptions', { items }),
  getOrder: (id: string) => call('get_order', { id }),
  draftOrder: (patientId: string, prescriptionIds: string[]) =>
    call('draft_order', { patientId, prescriptionIds }),
  changeOrderPrescriptions: (id: string, add: string[], remove: string[]) =>
    call('change_order_prescriptions', { id, add, remove }),
  findPharmacies: (orderId: string, search: PharmacySearch) =>
    call('find_pharmacies', { orderId, search }),
  choosePharmacy: (orderId: string, pharmacyId: string | null) =>
    call('choose_pharmacy', { orderId, pharmacyId }),
  sendOrder: (id: string) => call('send_order', { id }),
  cancelOrder: (id: string) => call('cancel_order', { id }),
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
