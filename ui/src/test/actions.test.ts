// One user action on a slow or failing link, as the screens show it: under way
// at once, "Still trying" when the core retries, Cancel where it is safe, the
// form kept with "Try again" (the same key) after a failure, a double click
// sent once.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import type { PrescriptionOutcome, PrescriptionView } from '../bindings/ipc';
import { EVENT_RETRY } from '../bindings/ipc';
import { ADA_SESSION, type FakeTransport, button, byLabel, install, patient, prescription, settle, type } from './fake';
import { go, startApp } from './harness';

/** A save that never answers until the test says so. */
function heldSave(fake: FakeTransport): { answer: (o: PrescriptionOutcome) => void } {
  let answer: (o: PrescriptionOutcome) => void = () => {};
  fake.on('save_draft', () => new Promise<PrescriptionOutcome>((resolve) => (answer = resolve)));
  return { answer: (o) => answer(o) };
}

/** The new-draft screen for Jane Doe, with instructions and a quantity typed. */
async function newDraftTyped(fake: FakeTransport): Promise<HTMLElement> {
  fake.on('get_patient', () => patient()).on('cancel_action', () => true);
  const root = await startApp(fake, ADA_SESSION);
  await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
  type(byLabel(root, 'Instructions'), 'One tablet at night');
  type(byLabel(root, 'Quantity'), '30');
  flushSync();
  return root;
}

const saved = (p: PrescriptionView): PrescriptionOutcome => ({ kind: 'saved', prescription: p, notes: [] });

describe('an action on a slow or failing link', () => {
  it('shows the save under way in the same tick, on the button and the form, and keeps the focus', async () => {
    const fake = install();
    heldSave(fake);
    const root = await newDraftTyped(fake);
    const save = button(root, 'Save draft');
    save.focus();

    save.click();
    flushSync();

    expect(save.getAttribute('aria-busy')).toBe('true');
    expect(root.querySelector('form')?.getAttribute('aria-busy')).toBe('true');
    expect(root.querySelector('[data-testid="pending"]')?.textContent).toContain('Saving…');
    expect(document.activeElement).toBe(save);
  });

  it('says "Still trying (attempt 2)" when the core tries the save again', async () => {
    const fake = install();
    heldSave(fake);
    const root = await newDraftTyped(fake);
    button(root, 'Save draft').click();
    await settle();
    const action = fake.callsOf('save_draft')[0]?.args.action;

    fake.emit(EVENT_RETRY, { action, attempt: 2, waitMs: 400, reason: 'network', record: null });
    flushSync();

    expect(root.querySelector('[data-testid="still-trying"]')?.textContent).toBe('Still trying (attempt 2)');
  });

  it('sends a double click on Save draft once', async () => {
    const fake = install();
    heldSave(fake);
    const root = await newDraftTyped(fake);

    button(root, 'Save draft').click();
    button(root, 'Save draft').click();
    await settle();

    expect(fake.callsOf('save_draft')).toHaveLength(1);
  });

  it('stops waiting for a new draft on Cancel, says it may be saved, and Try again sends the same key', async () => {
    const fake = install();
    heldSave(fake);
    const root = await newDraftTyped(fake);
    button(root, 'Save draft').click();
    await settle();
    const first = fake.callsOf('save_draft')[0]?.args;

    button(root, 'Stop waiting').click();
    await settle();

    expect(fake.callsOf('cancel_action')[0]?.args.action).toBe(first?.action);
    expect(root.querySelector('[data-testid="stopped-create"]')?.textContent).toContain('may have been saved');
    expect(byLabel(root, 'Instructions').value).toBe('One tablet at night');
    button(root, 'Try again').click();
    await settle();
    const second = fake.callsOf('save_draft')[1]?.args;
    expect(second?.key).toBe(first?.key);
    expect(second?.action).not.toBe(first?.action);
  });

  it('keeps the form after a failure of the link and offers Try again, which sends the same key', async () => {
    const fake = install();
    let fail = true;
    fake.on('save_draft', () => {
      if (fail) throw { kind: 'network', message: 'no answer from the network' };
      return saved(prescription('rx_9'));
    });
    const root = await newDraftTyped(fake);
    button(root, 'Save draft').click();
    await settle();

    expect(byLabel(root, 'Instructions').value).toBe('One tablet at night');
    expect(byLabel(root, 'Quantity').value).toBe('30');
    fail = false;
    button(root, 'Try again').click();
    await settle();

    const [first, second] = fake.callsOf('save_draft');
    expect(second?.args.key).toBe(first?.args.key);
    expect(second?.args.form).toEqual(first?.args.form);
  });

  it('makes a new key for the next draft once one is saved', async () => {
    const fake = install();
    fake.on('save_draft', () => saved(prescription('rx_9')));
    const root = await newDraftTyped(fake);
    button(root, 'Save draft').click();
    await settle();

    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-other' });
    type(byLabel(root, 'Instructions'), 'One tablet in the morning');
    type(byLabel(root, 'Quantity'), '30');
    flushSync();
    button(root, 'Save draft').click();
    await settle();

    const [first, second] = fake.callsOf('save_draft');
    expect(second?.args.key).not.toBe(first?.args.key);
  });

  it('shows what an earlier attempt saved when its answer was lost, with the edit made since applied', async () => {
    const fake = install();
    fake.on('save_draft', () => ({ ...saved(prescription('rx_9')), resumed: { updated: true } }));
    const root = await newDraftTyped(fake);
    button(root, 'Save draft').click();
    await settle();

    expect(root.querySelector('[data-testid="resumed"]')?.textContent).toContain('No second draft was made; the changes you made since were applied to it.');
  });

  it('cancels loading a prescription, saying nothing was changed, and loads it again on Try again', async () => {
    const fake = install();
    let answer: (p: PrescriptionView) => void = () => {};
    fake
      .on('get_patient', () => patient())
      .on('cancel_action', () => true)
      .on('get_prescription', () => new Promise<PrescriptionView>((resolve) => (answer = resolve)));
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: 'rx_9', key: 'rx-rx_9' });

    button(root, 'Cancel').click();
    await settle();

    expect(fake.callsOf('cancel_action')[0]?.args.action).toBe(fake.callsOf('get_prescription')[0]?.args.action);
    expect(root.textContent).toContain('Stopped. Nothing was changed.');
    button(root, 'Try again').click();
    await settle();
    answer(prescription('rx_9'));
    await settle();
    expect(fake.callsOf('get_prescription')).toHaveLength(2);
    expect(root.textContent).not.toContain('Stopped. Nothing was changed.');
  });
});
