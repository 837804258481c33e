// A fake IPC transport for UI tests: a typed handler per command (throw a
// CommandError to reject), a log of calls, events the test can emit, and
// builders for the records the commands answer with.
import type {
  CommandError,
  Commands,
  OrderView,
  PatientRecord,
  PrescriptionView,
  SessionInfo,
} from '../bindings/ipc';
import type { Args, CommandName, Result, Transport, Unlisten } from '../lib/backend';
import { setTransport } from '../lib/backend';
import { app } from '../lib/app.svelte';

type Handler<K extends CommandName> = (args: Args<K>) => Result<K> | Promise<Result<K>>;

export class FakeTransport implements Transport {
  handlers = new Map<string, (args: never) => unknown>();
  calls: { cmd: string; args: Record<string, unknown> }[] = [];
  listeners = new Map<string, ((payload: unknown) => void)[]>();

  on<K extends CommandName>(cmd: K, handler: Handler<K>): this {
    this.handlers.set(cmd, handler as (args: never) => unknown);
    return this;
  }

  invoke<T>(cmd: string, args: Record<string, unknown> = {}): Promise<T> {
    this.calls.push({ cmd, args });
    const handler = this.handlers.get(cmd);
    if (!handler) return Promise.reject({ kind: 'app', message: `no handler for ${cmd}` });
    try {
      return Promise.resolve(handler(args as never) as T);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  listen<T>(event: string, handler: (payload: T) => void): Promise<Unlisten> {
    const list = this.listeners.get(event) ?? [];
    list.push(handler as (payload: unknown) => void);
    this.listeners.set(event, list);
    return Promise.resolve(() => {
      const now = this.listeners.get(event) ?? [];
      this.listeners.set(event, now.filter((h) => h !== handler));
    });
  }

  emit(event: string, payload: unknown): void {
    for (const h of this.listeners.get(event) ?? []) h(payload);
  }

  callsOf<K extends CommandName>(cmd: K): { cmd: K; args: Commands[K]['args'] }[] {
    return this.calls.filter((c) => c.cmd === cmd) as unknown as { cmd: K; args: Commands[K]['args'] }[];
  }
}

export function install(): FakeTransport {
  const fake = new FakeTransport();
  setTransport(fake);
  app.reset();
  return fake;
}

export const MO_SESSION: SessionInfo = {
  environmentId: 'sandbox',
  subject: 'usr_mo',
  userName: 'Mo Reyes',
  userEmail: 'mo@maple.example',
  role: 'medical_ops',
  organizationId: 'org_maple',
  organizationName: 'Maple Street Clinic',
  permissions: ['read:patient', 'write:patient', 'read:prescription', 'read:order', 'write:order'],
  expiresAt: '2030-01-01T00:00:00Z',
  wrongClock: null,
};

export const ADA_SESSION: SessionInfo = {
  ...MO_SESSION,
  subject: 'usr_ada',
  userName: 'Ada Park',
  userEmail: 'ada@maple.example',
  role: 'prescriber',
  permissions: [...MO_SESSION.permissions, 'write:prescription'],
};

export const BEN_SESSION: SessionInfo = {
  ...ADA_SESSION,
  subject: 'usr_ben',
  userName: 'Ben Ortiz',
  userEmail: 'ben@birch.example',
  organizationId: 'org_birch',
  organizationName: 'Birch Family Practice',
};

export function status(session: SessionInfo | null) {
  return {
    environments: [{ id: 'sandbox', name: 'Local sandbox', source: 'sandbox' as const, authUrl: '', apiUrl: '', requireIssuer: true }],
    activeEnvironment: 'sandbox',
    session,
    storage: { kind: 'keyring' as const },
    environmentProblems: [],
    link: null,
    idleLockSeconds: 900,
    ended: null,
    indexProblem: null as string | null,
    presets: [
      { name: 'Vendor sandbox', authUrl: 'https://auth.neutron.health', apiUrl: 'https://network.neutron.health', audience: 'https://api.neutron.health', requireIssuer: true },
    ],
  };
}

export function refused(code: string, message: string, requiredPermission: string | null): CommandError {
  return { kind: 'refused', code, message, requiredPermission };
}

export function patient(overrides: Partial<PatientRecord> = {}): PatientRecord {
  return {
    id: 'pat_1',
    firstName: 'Jane',
    middleName: null,
    lastName: 'Doe',
    fullName: 'Jane Doe',
    dateOfBirth: '1980-04-02',
    sex: 'FEMALE',
    email: 'jane@example.net',
    phone: null,
    gender: null,
    address: null,
    benefits: [],
    preferredPharmacy: null,
    notes: null,
    allergies: [],
    medications: [],
    diagnoses: [],
    link: 'rxdesk://patient/pat_1',
    ...overrides,
  };
}

export function prescription(id: string, overrides: Partial<PrescriptionView> = {}): PrescriptionView {
  return {
    id,
    patientId: 'pat_1',
    status: 'READY',
    signing: 'UNSIGNED',
    contentHash: `hash-${id}-1`,
    signedAt: null,
    templateId: null,
    drug: { id: `drug_${id}`, name: `Drug ${id}`, rxNormId: null },
    instructions: 'One tablet daily',
    dispense: { quantity: 30, unit: 'tablet', daysSupply: 30, refills: 0, dispenseAsWritten: null },
    diagnoses: [],
    notes: null,
    alerts: [],
    link: `rxdesk://prescription/${id}`,
    ...overrides,
  };
}

export function order(overrides: Partial<OrderView> = {}): OrderView {
  return {
    id: 'ord_1',
    state: 'DRAFT',
    patientId: 'pat_1',
    patientName: 'Jane Doe',
    prescriptions: [prescription('rx_1')],
    pharmacy: null,
    exceptions: [],
    link: 'rxdesk://order/ord_1',
    ...overrides,
  };
}

/** Lets promises, timers and Svelte updates settle. */
export async function settle(ms = 0): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, ms));
}

export function type(input: Element | null, value: string): void {
  if (!(input instanceof HTMLInputElement || input instanceof HTMLTextAreaElement)) throw new Error('not an input');
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

export function byLabel(root: ParentNode, text: string): HTMLInputElement {
  const label = [...root.querySelectorAll('label')].find((l) => l.textContent?.replace(/\s+/g, ' ').trim() === text);
  const id = label?.getAttribute('for');
  const el = id ? document.getElementById(id) : null;
  if (!el) throw new Error(`no control labelled ${text}`);
  return el as HTMLInputElement;
}

export function button(root: ParentNode, text: string | RegExp): HTMLButtonElement {
  const b = buttons(root, text)[0];
  if (!b) throw new Error(`no button ${text}`);
  return b;
}

export function buttons(root: ParentNode, text: string | RegExp): HTMLButtonElement[] {
  return [...root.querySelectorAll('button')].filter((x) => {
    const t = x.textContent?.replace(/\s+/g, ' ').trim() ?? '';
    return typeof text === 'string' ? t === text : text.test(t);
  });
}
