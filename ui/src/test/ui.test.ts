import { afterEach, describe, expect, it } from 'vitest';
import { flushSync, mount, unmount, type Component } from 'svelte';
import App from '../App.svelte';
import OrderCard from '../components/OrderCard.svelte';
import SigningQueue from '../components/SigningQueue.svelte';
import { app } from '../lib/app.svelte';
import { sendBlockedReason, sendLabel } from '../lib/orders';
import { missingPermissionNote } from '../lib/permissions';
import { EVENT_SESSION, EVENT_SIGN_IN } from '../bindings/ipc';
import { MO_SESSION, byLabel, button, install, order, prescription, refused, settle, type } from './fake';

let mounted: Record<string, unknown>[] = [];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyComponent = Component<any>;

function render(component: AnyComponent, props: Record<string, unknown> = {}) {
  const target = document.createElement('div');
  document.body.appendChild(target);
  const instance = mount(component, { target, props });
  mounted.push(instance);
  flushSync();
  return target;
}

afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = '';
});

describe('the refusal banner', () => {
  it('shows the network refusal with its code, message and permission until dismissed', async () => {
    const fake = install();
    app.session = MO_SESSION;
    fake
      .on('signing_queue', () => [prescription('rx_1', 'DRAFT', 'Jane Doe')])
      .on('sign_prescriptions', () => {
        throw refused('PRESCRIPTION_SIGNING_UNAUTHORIZED', 'You are not authorized to sign prescriptions', 'write:prescription');
      });
    const root = render(SigningQueue);
    await settle();

    // Marked before the click, and still clickable.
    expect(root.textContent).toContain('Signing needs write:prescription — prescribers only');
    (root.querySelector('input[aria-label="Select Jane Doe: Medication rx_1"]') as HTMLInputElement).click();
    flushSync();
    const signSelected = button(root, /^Sign selected \(1\)$/);
    expect(signSelected.disabled).toBe(false);
    signSelected.click();
    flushSync();
    // The confirmation names the patient and the medication.
    expect(root.querySelector('[role="alertdialog"]')?.textContent).toContain('Jane Doe');
    expect(root.querySelector('[role="alertdialog"]')?.textContent).toContain('Medication rx_1');
    button(root, 'Sign these').click();
    await settle();

    expect(fake.callsOf('sign_prescriptions')[0]?.args).toEqual({ ids: ['rx_1'] });
    const banner = root.querySelector('[data-testid="refusal"]');
    expect(banner?.getAttribute('role')).toBe('alert');
    expect(banner?.textContent).toContain('You are not authorized to sign prescriptions');
    expect(root.querySelector('[data-testid="refusal-code"]')?.textContent).toBe('PRESCRIPTION_SIGNING_UNAUTHORIZED');
    expect(root.querySelector('[data-testid="refusal-permission"]')?.textContent).toBe('write:prescription');

    button(root, 'Dismiss').click();
    flushSync();
    expect(root.querySelector('[data-testid="refusal"]')).toBeNull();
  });

  it('shows per-item outcomes of one Sign selected request', async () => {
    const fake = install();
    app.session = { ...MO_SESSION, permissions: [...MO_SESSION.permissions, 'write:prescription'] };
    fake
      .on('signing_queue', () => [prescription('rx_1', 'DRAFT', 'Jane Doe'), prescription('rx_2', 'DRAFT', 'Sam Roe')])
      .on('sign_prescriptions', () => [
        { prescriptionId: 'rx_1', signed: prescription('rx_1', 'ACTIVE'), error: null },
        { prescriptionId: 'rx_2', signed: null, error: { kind: 'invalid', code: 'PRESCRIPTION_NOT_DRAFT', message: 'already signed', field: null } },
      ]);
    const root = render(SigningQueue);
    await settle();
    expect(root.textContent).not.toContain('Signing needs');
    (root.querySelector('input[aria-label="Select all drafts"]') as HTMLInputElement).click();
    flushSync();
    button(root, /^Sign selected \(2\)$/).click();
    flushSync();
    button(root, 'Sign these').click();
    await settle();

    expect(fake.callsOf('sign_prescriptions')).toHaveLength(1);
    const results = root.querySelector('[aria-label="Signing results"]')?.textContent ?? '';
    expect(results).toContain('Jane Doe: Medication rx_1');
    expect(results).toContain('Signed');
    expect(results).toContain('Sam Roe: Medication rx_2');
    expect(results).toContain('already signed');
  });
});

it('shows a per-item refusal of Sign selected in the banner as well', async () => {
  const fake = install();
  app.session = MO_SESSION;
  const refusal = refused('PRESCRIPTION_SIGNING_UNAUTHORIZED', 'The caller is not authorized to sign prescriptions', 'write:prescription');
  fake
    .on('signing_queue', () => [prescription('rx_1', 'DRAFT', 'Jane Doe')])
    .on('sign_prescriptions', () => [{ prescriptionId: 'rx_1', signed: null, error: refusal }]);
  const root = render(SigningQueue);
  await settle();
  (root.querySelector('input[aria-label="Select Jane Doe: Medication rx_1"]') as HTMLInputElement).click();
  flushSync();
  button(root, /^Sign selected/).click();
  await settle();
  expect(document.activeElement?.textContent).toBe('Sign these');
  button(root, 'Sign these').click();
  await settle();

  expect(root.querySelector('[data-testid="refusal-code"]')?.textContent).toBe('PRESCRIPTION_SIGNING_UNAUTHORIZED');
  expect(root.querySelector('[data-testid="refusal-permission"]')?.textContent).toBe('write:prescription');
  expect(root.querySelector('[aria-label="Signing results"]')?.textContent).toContain('Not signed');
});

describe('the Send button', () => {
  it('says why the order cannot go yet, and still asks the network when clicked', async () => {
    const fake = install();
    app.session = MO_SESSION;
    fake.on('send_order', () => {
      // As the sandbox answers: the error names the order's `fills`.
      throw { kind: 'invalid', code: 'ORDER_HAS_UNSIGNED_PRESCRIPTIONS', message: 'every prescription must be signed first', field: 'fills' };
    });
    const root = render(OrderCard, { order: order(['DRAFT', 'DRAFT', 'ACTIVE']), onchanged: () => {} });

    const label = root.querySelector('[data-testid="send-label"]');
    expect(label?.textContent).toBe("Send — 2 prescriptions await a prescriber's signature");
    (label?.closest('button') as HTMLButtonElement).click();
    await settle();

    expect(fake.callsOf('send_order')).toHaveLength(1);
    expect(root.textContent).toContain('every prescription must be signed first');
    expect(root.textContent).toContain('ORDER_HAS_UNSIGNED_PRESCRIPTIONS');
  });

  it('names one unsigned prescription in the singular and nothing when all are signed', () => {
    expect(sendBlockedReason(order(['DRAFT', 'ACTIVE']))).toBe("1 prescription awaits a prescriber's signature");
    expect(sendLabel(order(['ACTIVE', 'ACTIVE']))).toBe('Send');
  });
});

describe('permissions', () => {
  it('name the permission and who has it only when the token lacks it', () => {
    expect(missingPermissionNote('signPrescription', MO_SESSION.permissions)).toBe(
      'Signing needs write:prescription — prescribers only',
    );
    expect(missingPermissionNote('sendOrder', MO_SESSION.permissions)).toBeNull();
  });
});

describe('signing in again mid-task', () => {
  it('keeps what was typed in a form and lets the user submit it again', async () => {
    const fake = install();
    let answer: 'signedOut' | 'ok' = 'signedOut';
    fake
      .on('app_status', () => ({
        environments: [{ id: 'sandbox', name: 'Local sandbox', source: 'sandbox', authUrl: '', apiUrl: '' }],
        activeEnvironment: 'sandbox',
        session: MO_SESSION,
        storage: { kind: 'keyring' },
        environmentProblems: [],
      }))
      .on('search_patients', () => ({ items: [], nextCursor: null }))
      .on('sign_in', () => undefined)
      .on('create_patient', (args) => {
        if (answer === 'signedOut') {
          // As the app does: the session event comes first, then the command's answer.
          fake.emit(EVENT_SESSION, { session: null, storage: { kind: 'keyring' } });
          throw { kind: 'signedOut', message: 'the token expired' };
        }
        const input = args.input as { firstName: string; lastName: string };
        return { id: 'pat_9', firstName: input.firstName, lastName: input.lastName, fullName: `${input.firstName} ${input.lastName}` };
      })
      .on('get_patient', () => new Promise(() => {}));
    const root = render(App);
    await app.start();
    await settle();

    button(root, 'New patient').click();
    flushSync();
    type(byLabel(root, 'First name'), 'Grace');
    type(byLabel(root, 'Last name'), 'Hopper');
    type(byLabel(root, 'Date of birth'), '1906-12-09');
    type(byLabel(root, 'Phone (optional)'), '555-0100');
    flushSync();
    button(root, 'Create patient').click();
    await settle();

    // Sign-in opens over the form; nothing typed is lost.
    const dialog = root.querySelector('[role="dialog"]');
    expect(dialog?.textContent).toContain('Sign in to Rx Desk');
    expect(dialog?.textContent).toContain('what you typed is kept');
    expect(fake.callsOf('search_patients')).toHaveLength(1);
    expect(byLabel(root, 'First name').value).toBe('Grace');
    expect(byLabel(root, 'Phone (optional)').value).toBe('555-0100');

    button(root, 'Sign in with your browser').click();
    await settle();
    fake.emit(EVENT_SIGN_IN, { stage: 'waiting', url: 'http://127.0.0.1:1/authorize?x', browserOpened: true });
    flushSync();
    expect(root.textContent).toContain('Waiting for your browser…');
    fake.emit(EVENT_SIGN_IN, { stage: 'signedIn', session: MO_SESSION });
    flushSync();
    expect(root.querySelector('[role="dialog"]')).toBeNull();
    expect(byLabel(root, 'Last name').value).toBe('Hopper');

    answer = 'ok';
    button(root, 'Create patient').click();
    await settle();
    const calls = fake.callsOf('create_patient');
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args).toEqual(calls[0]?.args);
    expect(calls[1]?.args.input).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', dateOfBirth: '1906-12-09', phone: '555-0100' });
  });

  it('shows its own message for access denied, timeout and network failure', async () => {
    const fake = install();
    fake.on('app_status', () => ({
      environments: [{ id: 'sandbox', name: 'Local sandbox', source: 'sandbox', authUrl: '', apiUrl: '' }],
      activeEnvironment: 'sandbox',
      session: null,
      storage: { kind: 'memoryOnly', reason: 'no keyring service' },
      environmentProblems: [],
    }));
    const root = render(App);
    await app.start();
    await settle();
    expect(root.textContent).toContain('kept in memory only');

    const seen = new Set<string>();
    for (const reason of ['accessDenied', 'timeout', 'network']) {
      fake.emit(EVENT_SIGN_IN, { stage: 'failed', reason, message: 'details' });
      flushSync();
      seen.add(root.querySelector('[data-testid="signin-failure"] strong')?.textContent ?? '');
    }
    expect(seen.size).toBe(3);
  });
});
