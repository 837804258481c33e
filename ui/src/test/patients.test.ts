import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import type { PatientSummary } from '../bindings/ipc';
import { MO_SESSION, byLabel, button, buttons, install, patient, settle, type } from './fake';
import { go, startApp } from './harness';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('patient search', () => {
  it('never opens a candidate by itself, even when there is only one', async () => {
    const fake = install();
    fake.on('find_patients', () => [{ id: 'pat_1', name: 'Jane Doe', dateOfBirth: '1980-04-02' }]);
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'patients' });
    type(byLabel(root, 'Search patients by name'), 'Jane');
    flushSync();
    expect(root.textContent).toContain('Searching…');
    await wait(300);
    await settle();

    expect([...root.querySelectorAll('h3')].map((h) => h.textContent)).toContain('Candidates');
    expect(button(root, 'Jane Doe — born 1980-04-02')).toBeTruthy();
    expect(fake.callsOf('get_patient')).toHaveLength(0);
    expect(root.querySelector('h2')?.textContent).toBe('Patients');
  });

  it('sends each new text at once and cancels the search still out for the older one', async () => {
    const fake = install();
    const answers: Record<string, (v: PatientSummary[]) => void> = {};
    fake
      .on('find_patients', ({ query }) => new Promise<PatientSummary[]>((resolve) => (answers[query] = resolve)))
      .on('cancel_action', () => true);
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'patients' });
    const input = byLabel(root, 'Search patients by name');
    type(input, 'J');
    type(input, 'Ja');
    type(input, 'Jan');
    await settle();

    const searches = fake.callsOf('find_patients');
    expect(searches.map((c) => c.args.query)).toEqual(['J', 'Ja', 'Jan']);
    expect(fake.callsOf('cancel_action').map((c) => c.args.action)).toEqual(
      searches.slice(0, 2).map((c) => c.args.action),
    );
    answers['J']?.([{ id: 'pat_2', name: 'Jack Roe', dateOfBirth: null }]);
    await settle();
    expect(buttons(root, /Jack Roe/)).toHaveLength(0);
    answers['Jan']?.([{ id: 'pat_1', name: 'Jane Doe', dateOfBirth: null }]);
    await settle();
    expect(buttons(root, /Jane Doe/)).toHaveLength(1);
  });

  it('never lets an older answer replace the answer to the text in the box', async () => {
    const fake = install();
    const answers: Record<string, (v: PatientSummary[]) => void> = {};
    fake.on('find_patients', ({ query }) => new Promise<PatientSummary[]>((resolve) => (answers[query] = resolve)));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'patients' });
    const input = byLabel(root, 'Search patients by name');
    type(input, 'Ja');
    await settle();
    answers['Ja']?.([{ id: 'pat_2', name: 'Jack Roe', dateOfBirth: null }]);
    await settle();
    type(input, 'Jan');
    await settle();
    answers['Jan']?.([{ id: 'pat_1', name: 'Jane Doe', dateOfBirth: null }]);
    await settle();
    type(input, 'Ja');
    await settle();
    type(input, 'Jan');
    await settle();
    // The answer to the later 'Ja' comes after the text is 'Jan' again.
    answers['Ja']?.([{ id: 'pat_2', name: 'Jack Roe', dateOfBirth: null }]);
    await settle();
    answers['Jan']?.([{ id: 'pat_1', name: 'Jane Doe', dateOfBirth: null }]);
    await settle();

    expect(buttons(root, /Jane Doe/)).toHaveLength(1);
    expect(buttons(root, /Jack Roe/)).toHaveLength(0);
  });
});

describe('the patient page', () => {
  it('shows the allergies first, in their own region', async () => {
    const fake = install();
    fake
      .on('get_patient', () =>
        patient({
          allergies: [{ id: 'al_1', name: 'Penicillin', code: '7980' }],
          medications: [{ id: 'med_1', name: 'Lisinopril', code: null, status: 'ACTIVE' }],
        }),
      )
      .on('patient_work', () => ({ prescriptions: [], orders: [] }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'patient', id: 'pat_1', notes: [] });

    const regions = [...root.querySelectorAll('[role="region"]')].map((r) => r.getAttribute('aria-label'));
    expect(regions).toEqual(['Allergies', 'Medications', 'Diagnoses', 'Insurance', 'Preferred pharmacy']);
    expect(root.querySelector('[aria-label="Allergies"]')?.textContent).toContain('Penicillin');
    expect(button(root, 'Remove Penicillin')).toBeTruthy();
    expect(root.querySelector('[aria-label="Diagnoses"]')?.textContent).toContain('No diagnoses recorded');
    expect(document.activeElement?.textContent).toBe('Jane Doe');
  });

  it('offers the options of an ambiguous allergy and resends the same edit with the chosen id', async () => {
    const fake = install();
    let record = patient();
    fake
      .on('get_patient', () => record)
      .on('patient_work', () => ({ prescriptions: [], orders: [] }))
      .on('edit_clinical', ({ edit }) => {
        const entry = edit.addAllergies[0];
        if (entry?.id) {
          record = patient({ allergies: [{ id: 'al_2', name: 'Sulfamethoxazole', code: '10180' }] });
          return { kind: 'saved', patient: record, notes: [] };
        }
        return {
          kind: 'saved',
          patient: record,
          notes: [
            {
              key: 'clinical.allergies.add.0',
              label: 'Allergy “sulfa”',
              status: 'AMBIGUOUS',
              severity: 'BLOCKING',
              reason: 'Several allergens match this name',
              options: [
                { label: 'Sulfamethoxazole', reason: null, argument: 'allergen.id', value: 'alg_smx', exact: false, offers: [] },
                { label: 'Sulfasalazine', reason: null, argument: 'allergen.id', value: 'alg_ssz', exact: false, offers: [] },
              ],
            },
          ],
        };
      });
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'patient', id: 'pat_1', notes: [] });
    type(byLabel(root, 'New allergy'), 'sulfa');
    flushSync();
    button(root, 'Add allergy').click();
    await settle();

    const allergies = root.querySelector('[aria-label="Allergies"]');
    expect(allergies?.textContent).toContain('Several allergens match this name');
    expect(byLabel(root, 'New allergy').value).toBe('sulfa');
    button(root, 'Use Sulfamethoxazole').click();
    await settle();

    const [first, second] = fake.callsOf('edit_clinical');
    expect(first?.args.edit.addAllergies).toEqual([{ name: 'sulfa', id: null, status: null }]);
    expect(second?.args).toEqual({ action: expect.any(String), id: 'pat_1', edit: { ...first?.args.edit, addAllergies: [{ name: null, id: 'alg_smx', status: null }] } });
    expect(allergies?.textContent).toContain('Sulfamethoxazole');
    expect(buttons(root, /^Use /)).toHaveLength(0);
    expect(byLabel(root, 'New allergy').value).toBe('');
  });

  it('says plainly that a record the network does not give is not in this organization', async () => {
    const fake = install();
    fake
      .on('get_patient', () => {
        throw { kind: 'notFound', message: 'No patient with this id' };
      })
      .on('patient_work', () => ({ prescriptions: [], orders: [] }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'patient', id: 'pat_404', notes: [] });

    const error = root.querySelector('[data-testid="record-error"]')?.textContent ?? '';
    expect(error).toContain('This record is not in Maple Street Clinic. It may belong to another organization, or the link is wrong.');
    expect(error).toContain('No patient with this id');
  });
});
