// Round trips per screen: what a screen needs is asked for at once, not one
// call after another's answer. Every answer is held back; the calls made
// before any answer are the screen's first (and only) round trip.
import { describe, expect, it } from 'vitest';
import type { OrderView, PatientRecord, PatientWork, PrescriptionView } from '../bindings/ipc';
import { ADA_SESSION, type FakeTransport, install, order, patient, prescription } from './fake';
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
