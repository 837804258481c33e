// Round trips per screen: what a screen needs is asked for at once, not one
// call after another's answer. Every answer is held back; the calls made
// before any answer are the screen's first (and only) round trip.
import { describe, expect, it } from 'vitest';
import type { OrderView, PatientRecord, PatientWork, PrescriptionView } from '../bindings/ipc';
import { app } from '../lib/app.svelte';
import { ADA_SESSION, type FakeTransport, install, order, patient, prescription, settle, status } from './fake';
import { go, startApp } from './harness';

/** Every record command answers only when `release` is called. */
function holdAnswers(fake: FakeTransport): { release: () => void } {
  const waiting: (() => void)[] = [];
  const held =
    <T,>(value: T) =>
    () =>
      new Promise<T>((resolve) => waiting.push(() => resolve(value)));
  fake
    .on('get_patient', held<PatientRecord>(patient()))
    .on('patient_work', held<PatientWork>({ prescriptions: [prescription('rx_2')], orders: [] }))
    .on('get_order', held<OrderView>(order()))
    .on('get_prescription', held<PrescriptionView>(prescription('rx_1')));
  return { release: () => waiting.splice(0).forEach((go) => go()) };
}

/** The commands called so far, by name, in order of name. */
const called = (fake: FakeTransport, from: number) =>
  fake.calls
    .slice(from)
    .map((c) => c.cmd)
    .sort();

describe('round trips per screen', () => {
  it('start-up asks for the first status while its listeners register, and applies it once they are in place', async () => {
    const fake = install();
    fake.on('app_status', () => status(ADA_SESSION));
    fake.on('check_network', () => ({ kind: 'compatible' }));
    fake.on('work_lists', () => ({ recentPatients: [], drafts: [], openOrders: [], dropped: 0 }));
    // Each listener registers only when released: in the app it is a round trip.
    const registering: (() => void)[] = [];
    const listen = fake.listen.bind(fake);
    fake.listen = ((event: string, handler: (payload: unknown) => void) =>
      new Promise((resolve) => registering.push(() => resolve(listen(event, handler))))) as typeof fake.listen;

    const started = app.start();
    await settle();

    expect(fake.callsOf('app_status')).toHaveLength(1);
    expect(registering.length).toBeGreaterThan(0);
    expect(app.status).toBeNull();
    registering.splice(0).forEach((go) => go());
    await started;
    expect(app.status?.session?.subject).toBe(ADA_SESSION.subject);
  });

  it('the patient page asks for the patient and their work together', async () => {
    const fake = install();
    holdAnswers(fake);
    await startApp(fake, ADA_SESSION);
    const from = fake.calls.length;

    await go({ name: 'patient', id: 'pat_1', notes: [] });

    expect(called(fake, from)).toEqual(['get_patient', 'patient_work']);
  });

  it('an order opened from its patient asks for the order and the patient\'s work together', async () => {
    const fake = install();
    holdAnswers(fake);
    await startApp(fake, ADA_SESSION);
    const from = fake.calls.length;

    await go({ name: 'order', id: 'ord_1', notes: [], patientId: 'pat_1' });

    expect(called(fake, from)).toEqual(['get_order', 'patient_work']);
  });

  it('a prescription opened from its patient asks for the prescription and the patient together', async () => {
    const fake = install();
    holdAnswers(fake);
    await startApp(fake, ADA_SESSION);
    const from = fake.calls.length;

    await go({ name: 'prescription', patientId: 'pat_1', id: 'rx_1', key: 'rx-rx_1' });

    expect(called(fake, from)).toEqual(['get_patient', 'get_prescription']);
  });

  it('the Work screen is one call', async () => {
    const fake = install();
    await startApp(fake, ADA_SESSION);
    const from = fake.calls.length;

    await go({ name: 'work' });

    expect(called(fake, from)).toEqual(['work_lists']);
  });
});
