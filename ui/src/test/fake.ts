// A fake IPC transport for UI tests: handlers per command (throw a
// CommandError to reject), a log of calls, and events the test can emit.
import type { CommandError, Order, Prescription, SessionInfo } from '../bindings/ipc';
import type { Transport, Unlisten } from '../lib/backend';
import { setTransport } from '../lib/backend';
import { app } from '../lib/app.svelte';

type Handler = (args: Record<string, unknown>) => unknown;

export class FakeTransport implements Transport {
  handlers = new Map<string, Handler>();
  calls: { cmd: string; args: Record<string, unknown> }[] = [];
  listeners = new Map<string, ((payload: unknown) => void)[]>();

  on(cmd: string, handler: Handler): this {
    this.handlers.set(cmd, handler);
    return this;
  }

  invoke<T>(cmd: string, args: Record<string, unknown> = {}): Promise<T> {
    this.calls.push({ cmd, args });
    const handler = this.handlers.get(cmd);
    if (!handler) return Promise.reject({ kind: 'app', message: `no handler for ${cmd}` });
    try {
      return Promise.resolve(handler(args) as T);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  listen<T>(event: string, handler: (payload: T) => void): Promise<Unlisten> {
    const list = this.listeners.get(event) ?? [];
    list.push(handler as (payload: unknown) => void);
    this.listeners.set(event, list);
    return Promise.resolve(() => {});
  }

  emit(event: string, payload: unknown): void {
    for (const h of this.listeners.get(event) ?? []) h(payload);
  }

  callsOf(cmd: string) {
    return this.calls.filter((c) => c.cmd === cmd);
  }
}

export function install(): FakeTransport {
  const fake = new FakeTransport();
  setTransport(fake);
  app.status = null;
  app.session = null;
  app.signIn = { stage: 'idle' };
  app.keepWorkspace = false;
  app.resumeNotice = null;
  return fake;
}

export const MO_SESSION: SessionInfo = {
  environmentId: 'sandbox',
  userName: 'Mo Reyes',
  userEmail: 'mo@maple.example',
  role: 'medical_ops',
  organizationId: 'org_maple',
  organizationName: 'Maple Street Clinic',
  permissions: ['read:patient', 'write:patient', 'read:prescription', 'read:order', 'write:order'],
  expiresAt: '2030-01-01T00:00:00Z',
};

export function refused(code: string, message: string, requiredPermission: string | null): CommandError {
  return { kind: 'refused', code, message, requiredPermission };
}

export function prescription(id: string, state: string, patientName = 'Jane Doe'): Prescription {
  return {
    id,
    state,
    patientId: 'pat_1',
    patientName,
    medication: `Medication ${id}`,
    dispenseQuantity: 30,
    dispenseUnit: 'tablet',
    refills: 0,
    daysSupply: 30,
    instructions: 'One daily',
    notes: null,
    effectiveDate: null,
    writtenAt: null,
  };
}

export function order(states: string[]): Order {
  return {
    id: 'ord_1',
    state: 'DRAFT',
    patientId: 'pat_1',
    pharmacy: null,
    prescriptions: states.map((s, i) => prescription(`rx_${i}`, s)),
    createdAt: '2026-11-22T01:00:00Z',
  };
}

/** Lets promises and Svelte updates settle. */
export async function settle(ms = 0): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, ms));
}

export function type(input: Element | null, value: string): void {
  if (!(input instanceof HTMLInputElement || input instanceof HTMLTextAreaElement)) throw new Error('not an input');
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

export function byLabel(root: ParentNode, text: string): HTMLInputElement {
  const label = [...root.querySelectorAll('label')].find((l) => l.textContent?.trim() === text);
  const id = label?.getAttribute('for');
  const el = id ? (root as Element).ownerDocument?.getElementById(id) ?? document.getElementById(id) : null;
  if (!el) throw new Error(`no control labelled ${text}`);
  return el as HTMLInputElement;
}

export function button(root: ParentNode, text: string | RegExp): HTMLButtonElement {
  const b = [...root.querySelectorAll('button')].find((x) => {
    const t = x.textContent?.replace(/\s+/g, ' ').trim() ?? '';
    return typeof text === 'string' ? t === text : text.test(t);
  });
  if (!b) throw new Error(`no button ${text}`);
  return b;
}
