import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import type { ChoiceView } from '../bindings/ipc';
import { ADA_SESSION, button, buttons, byLabel, install, patient, prescription, settle, type } from './fake';
import { go, startApp } from './harness';
import { nav } from '../lib/nav.svelte';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const option = (label: string, value: string): ChoiceView => ({ label, value, reason: null, argument: 'drugId', exact: false, offers: [] });

describe('a draft prescription', () => {
  it('saves the drug chosen from the look-up with the fields typed', async () => {
    const fake = install();
    fake
      .on('get_patient', () => patient())
      .on('look_up_drug', () => [option('Amoxicillin 500 mg capsule', 'drug_amox')])
      .on('save_draft', () => ({ kind: 'saved', prescription: prescription('rx_9'), notes: [] }));
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    type(byLabel(root, 'Drug'), 'amox');
    flushSync();
    expect(root.textContent).toContain('Looking up…');
    await wait(300);
    await settle();
    button(root.querySelector('[aria-label="Drugs found"]') as HTMLElement, 'Amoxicillin 500 mg capsule').click();
    flushSync();
    expect(root.textContent).toContain('Chosen: Amoxicillin 500 mg capsule');
    type(byLabel(root, 'Instructions'), 'One capsule three times daily');
    type(byLabel(root, 'Quantity'), '21');
    type(byLabel(root, 'Unit'), 'capsule');
    type(byLabel(root, 'Days supply'), '7');
    type(byLabel(root, 'Refills'), '0');
    flushSync();
    button(root, 'Save draft').click();
    await settle();

    expect(fake.callsOf('save_draft')[0]?.args).toEqual({
      action: expect.any(String),
      patientId: 'pat_1',
      id: null,
      key: expect.any(String),
      form: { templateId: null, drugId: 'drug_amox', instructions: 'One capsule three times daily', quantity: 21, unit: 'capsule', daysSupply: 7, refills: 0, dispenseAsWritten: null, notes: null, addDiagnoses: [], removeDiagnoses: [] },
    });
    expect(root.querySelector('[data-testid="screening"]')?.textContent).toContain('Screening: READY');
  });

  it('marks the drugs shown busy while the answer to a newer text is still out', async () => {
    const fake = install();
    const answers: Record<string, (v: ChoiceView[]) => void> = {};
    fake
      .on('get_patient', () => patient())
      .on('look_up_drug', ({ query }) => new Promise<ChoiceView[]>((resolve) => (answers[query] = resolve)))
      .on('cancel_action', () => true);
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-busy' });
    type(byLabel(root, 'Drug'), 'amox');
    await settle();
    answers['amox']?.([option('Amoxicillin 500 mg capsule', 'drug_amox')]);
    await settle();
    const list = () => root.querySelector('[aria-label="Drugs found"]');
    expect(list()?.getAttribute('aria-busy')).toBeNull();

    type(byLabel(root, 'Drug'), 'amoxi');
    await settle();
    expect(list()?.getAttribute('aria-busy')).toBe('true');

    answers['amoxi']?.([option('Amoxicillin 250 mg capsule', 'drug_amox_250')]);
    await settle();
    expect(list()?.getAttribute('aria-busy')).toBeNull();
    expect(list()?.textContent).toContain('Amoxicillin 250 mg capsule');
  });

  it('sends the diagnoses chosen from the look-up, the note to the pharmacy and dispense-as-written with a new draft', async () => {
    const fake = install();
    fake
      .on('get_patient', () => patient())
      .on('look_up_drug', () => [option('Amoxicillin 500 mg capsule', 'drug_amox')])
      .on('look_up_diagnosis', ({ query }) =>
        query === 'pharyng' ? [{ ...option('J02.9 Acute pharyngitis, unspecified', 'dx_J02_9'), argument: 'clinical.diagnoses.add.0.id' }] : [],
      )
      .on('save_draft', () => ({ kind: 'saved', prescription: prescription('rx_9'), notes: [] }));
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-whole' });
    type(byLabel(root, 'Drug'), 'amox');
    await wait(300);
    await settle();
    button(root.querySelector('[aria-label="Drugs found"]') as HTMLElement, 'Amoxicillin 500 mg capsule').click();
    type(byLabel(root, 'Diagnosis'), 'pharyng');
    await wait(300);
    await settle();
    button(root.querySelector('[aria-label="Diagnoses found"]') as HTMLElement, 'J02.9 Acute pharyngitis, unspecified').click();
    flushSync();
    expect(root.querySelector('[aria-label="Diagnoses to add"]')?.textContent).toContain('J02.9 Acute pharyngitis, unspecified');
    expect(document.activeElement).toBe(byLabel(root, 'Diagnosis'));
    const daw = byLabel(root, 'Dispense as written') as unknown as HTMLSelectElement;
    daw.value = 'yes';
    daw.dispatchEvent(new Event('change', { bubbles: true }));
    type(byLabel(root, 'Note to the pharmacy'), ' Blister packs, please. ');
    flushSync();
    button(root, 'Save draft').click();
    await settle();

    expect(fake.callsOf('look_up_diagnosis')[0]?.args.query).toBe('pharyng');
    expect(fake.callsOf('save_draft')[0]?.args.form).toMatchObject({
      drugId: 'drug_amox',
      dispenseAsWritten: true,
      notes: 'Blister packs, please.',
      addDiagnoses: [{ id: 'dx_J02_9', name: 'J02.9 Acute pharyngitis, unspecified' }],
      removeDiagnoses: [],
    });
  });

  it('says when no diagnosis fits what was typed', async () => {
    const fake = install();
    fake.on('get_patient', () => patient()).on('look_up_diagnosis', () => []);
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-none' });
    type(byLabel(root, 'Diagnosis'), 'dragonpox');
    await wait(300);
    await settle();
    expect(root.textContent).toContain('No ICD-10 diagnosis in the catalog matches “dragonpox”.');
  });

  it('removes a diagnosis ticked on a draft and changes dispense-as-written as an update', async () => {
    const fake = install();
    const draft = prescription('rx_9', {
      diagnoses: [{ id: 'dx_J02_9', name: 'Acute pharyngitis, unspecified', code: 'J02.9' }],
      dispense: { quantity: 30, unit: 'tablet', daysSupply: 30, refills: 0, dispenseAsWritten: true },
    });
    fake
      .on('get_patient', () => patient())
      .on('get_prescription', () => draft)
      .on('save_draft', () => ({ kind: 'saved', prescription: { ...draft, diagnoses: [] }, notes: [] }));
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: null, id: 'rx_9', key: 'rx-change' });

    const removal = [...root.querySelectorAll('label')].find((l) => l.textContent?.includes('Remove J02.9 Acute pharyngitis'))?.querySelector('input');
    removal?.click();
    const daw = byLabel(root, 'Dispense as written') as unknown as HTMLSelectElement;
    daw.value = 'no';
    daw.dispatchEvent(new Event('change', { bubbles: true }));
    flushSync();
    button(root, 'Save draft').click();
    await settle();

    const sent = fake.callsOf('save_draft')[0]?.args;
    expect(sent?.id).toBe('rx_9');
    expect(sent?.form).toMatchObject({ removeDiagnoses: ['dx_J02_9'], addDiagnoses: [], dispenseAsWritten: false, notes: null, drugId: null });
  });

  it('marks a BLOCKED draft unmistakably, lists its alerts, and switches to an alternative the network offers', async () => {
    const fake = install();
    const blocked = prescription('rx_9', {
      status: 'BLOCKED',
      alerts: [
        {
          severity: 'MAJOR',
          kind: 'ALLERGEN',
          description: 'Penicillin allergy',
          involved: ['Amoxicillin', 'Penicillin'],
          alternatives: [option('Azithromycin 250 mg tablet', 'drug_azi')],
        },
      ],
    });
    fake
      .on('get_patient', () => patient())
      .on('get_prescription', () => blocked)
      .on('save_draft', () => ({ kind: 'saved', prescription: { ...blocked, status: 'READY', alerts: [] }, notes: [] }));
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: null, id: 'rx_9', key: 'rx-test' });

    const verdict = root.querySelector('[data-testid="screening"]');
    expect(verdict?.textContent).toContain('Screening: BLOCKED — this draft cannot be signed');
    expect(verdict?.classList.contains('screening-blocked')).toBe(true);
    expect(root.textContent).toContain('Major · Allergy: Penicillin allergy');
    expect(root.textContent).toContain('Involves: Amoxicillin, Penicillin');
    button(root, 'Switch to Azithromycin 250 mg tablet').click();
    await settle();
    expect(fake.callsOf('save_draft')[0]?.args).toEqual({
      action: expect.any(String),
      patientId: 'pat_1',
      id: 'rx_9',
      key: expect.any(String),
      form: { templateId: null, drugId: 'drug_azi', instructions: null, quantity: null, unit: null, daysSupply: null, refills: null, dispenseAsWritten: null, notes: null, addDiagnoses: [], removeDiagnoses: [] },
    });
    expect(root.querySelector('[data-testid="screening"]')?.textContent).toContain('Screening: READY');
  });

  it('prescribes a signed prescription again as a new draft opened for review, with one key however often it is tried', async () => {
    const fake = install();
    const signedRx = prescription('rx_1', { status: null, signing: 'SIGNED', signedAt: '2026-11-20' });
    const renewed = prescription('rx_2', { status: 'BLOCKED' });
    let failOnce = true;
    fake
      .on('get_prescription', ({ id }) => (id === 'rx_2' ? renewed : signedRx))
      .on('get_patient', () => patient())
      .on('prescribe_again', () => {
        if (failOnce) {
          failOnce = false;
          throw { kind: 'network', message: 'connection reset' };
        }
        return { kind: 'saved', prescription: renewed, notes: [] };
      });
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: null, id: 'rx_1', key: 'rx-rx_1' });
    expect(buttons(root, 'Review and sign')).toHaveLength(0);

    button(root, 'Prescribe again').click();
    await settle();
    button(root, 'Try again').click();
    await settle();

    const calls = fake.callsOf('prescribe_again');
    expect(calls).toHaveLength(2);
    expect(calls[0]?.args.id).toBe('rx_1');
    expect(calls[1]?.args.key).toBe(calls[0]?.args.key);
    expect(nav.route).toMatchObject({ name: 'prescription', id: 'rx_2' });
  });

  it('copies the link for the prescriber and shows it to copy by hand', async () => {
    const fake = install();
    fake.on('get_prescription', () => prescription('rx_1')).on('get_patient', () => patient());
    let copied = '';
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (t: string) => void (copied = t) }, configurable: true });
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: null, id: 'rx_1', key: 'rx-test' });
    button(root, 'Copy link for the prescriber').click();
    await settle();

    expect(copied).toBe('rxdesk://prescription/rx_1');
    expect(byLabel(root, 'Link').value).toBe('rxdesk://prescription/rx_1');
    expect(byLabel(root, 'Link').readOnly).toBe(true);
    expect(root.textContent).toContain('Link copied');
  });

  it('opened from a link, shows only with its patient, so Review and sign does not move under the pointer', async () => {
    const fake = install();
    let answerPatient: (() => void) | undefined;
    fake.on('get_prescription', () => prescription('rx_1')).on(
      'get_patient',
      () =>
        new Promise((resolve) => {
          answerPatient = () => resolve(patient());
        }),
    );
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: null, id: 'rx_1', key: 'rx-rx_1' });
    expect(buttons(root, 'Review and sign')).toHaveLength(0);

    answerPatient?.();
    await settle();

    expect(buttons(root, 'Review and sign')).toHaveLength(1);
    expect(root.textContent).toContain('born 1980-04-02');
  });
});
