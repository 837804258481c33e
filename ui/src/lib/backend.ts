// The typed bridge to the Rust commands. Every call goes through one transport
// (Tauri's IPC in the app, a fake in tests); every failure is a CommandError.
import type {
  AppStatus,
  CommandError,
  EnvironmentInput,
  Medication,
  Order,
  OrderInput,
  Page,
  Patient,
  PatientDetail,
  PatientInput,
  Pharmacy,
  Prescription,
  PrescriptionInput,
  SessionEvent,
  SignInEvent,
  SignOutcome,
} from '../bindings/ipc';
import { EVENT_SESSION, EVENT_SIGN_IN } from '../bindings/ipc';

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

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  if (!transport) throw toCommandError('The app is not connected to its backend.');
  try {
    return await transport.invoke<T>(command, args);
  } catch (e) {
    throw toCommandError(e);
  }
}

export const api = {
  appStatus: () => call<AppStatus>('app_status'),
  selectEnvironment: (id: string) => call<AppStatus>('select_environment', { id }),
  saveEnvironment: (input: EnvironmentInput) => call<AppStatus>('save_environment', { input }),
  removeEnvironment: (id: string) => call<AppStatus>('remove_environment', { id }),
  signIn: () => call<void>('sign_in'),
  cancelSignIn: () => call<void>('cancel_sign_in'),
  openSignInAgain: () => call<void>('open_sign_in_again'),
  signOut: () => call<void>('sign_out'),
  searchPatients: (query: string, after: string | null) =>
    call<Page<Patient>>('search_patients', { query, after }),
  getPatient: (id: string) => call<PatientDetail>('get_patient', { id }),
  createPatient: (input: PatientInput) => call<Patient>('create_patient', { input }),
  updatePatient: (id: string, input: PatientInput) => call<Patient>('update_patient', { id, input }),
  searchMedications: (query: string) => call<Medication[]>('search_medications', { query }),
  createPrescription: (input: PrescriptionInput) =>
    call<Prescription>('create_prescription', { input }),
  cancelPrescription: (id: string) => call<Prescription>('cancel_prescription', { id }),
  signingQueue: () => call<Prescription[]>('signing_queue'),
  signPrescriptions: (ids: string[]) => call<SignOutcome[]>('sign_prescriptions', { ids }),
  searchPharmacies: (query: string) => call<Pharmacy[]>('search_pharmacies', { query }),
  createOrder: (input: OrderInput) => call<Order>('create_order', { input }),
  sendOrder: (id: string) => call<Order>('send_order', { id }),
  cancelOrder: (id: string) => call<Order>('cancel_order', { id }),
};

export function onSignIn(handler: (e: SignInEvent) => void): Promise<Unlisten> {
  if (!transport) return Promise.resolve(() => {});
  return transport.listen<SignInEvent>(EVENT_SIGN_IN, handler);
}

export function onSession(handler: (e: SessionEvent) => void): Promise<Unlisten> {
  if (!transport) return Promise.resolve(() => {});
  return transport.listen<SessionEvent>(EVENT_SESSION, handler);
}
