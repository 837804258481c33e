import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import type { BenefitView, ChangeNote, PatientRecord } from '../bindings/ipc';
import { MO_SESSION, byLabel, button, buttons, install, patient, settle, type } from './fake';
import { go, startApp } from './harness';

const CARD: BenefitView = { id: 'ben_1', bin: '610014', pcn: null, groupId: 'RX77', memberId: 'M123456' };
const BOSTON = { street1: '12 Elm Street', street2: '', city: 'Boston', state: 'MA', postalCode: '02110', country: 'US' };
const BACK_BAY = { id: 'phr_back_bay', name: 'Harbor Drug Back Bay', address: '1 Boylston St, Boston', fulfillment: ['PICK_UP' as const] };

function refusal(key: string, reason: string): ChangeNote {
  return { key, label: 'Insurance', status: 'REJECTED', severity: 'BLOCKING', reason, options: [] };
}

async function open(record: () => PatientRecord) {
  const fake = install();
  fake.on('get_patient', () => record()).on('patient_work', () => ({ prescriptions: [], orders: [] }));
  const root = await startApp(fake, MO_SESSION);
  await go({ name: 'patient', id: 'pat_1', notes: [] });
  return { fake, root };
}

describe('the patient page: the whole record', () => {
  it('shows the address, gender, notes, insurance and preferred pharmacy', async () => {
    const { root } = await open(() =>
      patient({ gender: 'woman', address: BOSTON, notes: 'Prefers morning calls', benefits: [CARD], preferredPharmacy: BACK_BAY }),
    );

    expect(root.querySelector('[data-testid="patient-address"]')?.textContent).toBe('12 Elm Street, Boston, MA 02110, US');
    expect(root.querySelector('.demographics')?.textContent).toContain('woman');
    expect(root.querySelector('.demographics')?.textContent).toContain('Prefers morning calls');
    expect(root.querySelector('[aria-label="Insurance"]')?.textContent).toContain('BIN 610014, group RX77, member M123456');
    expect(root.querySelector('[data-testid="preferred-pharmacy"]')?.textContent).toContain('Harbor Drug Back Bay');
  });

  it('sends the middle name, gender, address and notes from the edit form', async () => {
    const { fake, root } = await open(() => patient());
    fake.on('save_patient', ({ input }) => ({
      kind: 'saved',
      patient: patient({ middleName: input.middleName ?? null, address: BOSTON }),
      notes: [],
    }));
    button(root, 'Edit details').click();
    flushSync();
    type(byLabel(root, 'Middle name'), 'Maria');
    type(byLabel(root, 'Gender'), 'woman');
    type(byLabel(root, 'Street'), '12 Elm Street');
    type(byLabel(root, 'City'), 'Boston');
    type(byLabel(root, 'State'), 'MA');
    type(byLabel(root, 'Postal code'), '02110');
    type(byLabel(root, 'Notes'), 'Prefers morning calls');
    flushSync();
    button(root, 'Save changes').click();
    await settle();

    const input = fake.callsOf('save_patient')[0]?.args.input;
    expect(input).toMatchObject({
      middleName: 'Maria',
      gender: 'woman',
      notes: 'Prefers morning calls',
      address: { ...BOSTON },
    });
    expect(buttons(root, 'Save changes')).toHaveLength(0);
  });

  it('shows the network refusing an address without a country beside Country alone, and keeps what was typed', async () => {
    const { fake, root } = await open(() => patient());
    fake.on('save_patient', () => ({
      kind: 'saved',
      patient: patient(),
      notes: [
        { key: 'demographic.gender', label: 'Gender', status: 'REJECTED', severity: 'INFO', reason: 'Not saved: nothing in this call was saved because `demographic.address.country` could not be applied', options: [] },
        { key: 'demographic.address.country', label: 'Address', status: 'REJECTED', severity: 'BLOCKING', reason: 'An address needs its country', options: [] },
      ],
    }));
    button(root, 'Edit details').click();
    flushSync();
    type(byLabel(root, 'City'), 'Boston');
    type(byLabel(root, 'Country'), '');
    flushSync();
    button(root, 'Save changes').click();
    await settle();

    const country = byLabel(root, 'Country');
    expect(country.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(country.getAttribute('aria-describedby') ?? '')?.textContent).toBe('An address needs its country');
    expect(byLabel(root, 'City').value).toBe('Boston');
    expect(byLabel(root, 'Gender').getAttribute('aria-invalid')).not.toBe('true');
    expect(button(root, 'Save changes')).toBeTruthy();
  });
});

describe('the patient page: insurance', () => {
  it('adds a card and shows the network refusing a missing member id beside Member id, keeping what was typed', async () => {
    const { fake, root } = await open(() => patient());
    fake.on('edit_benefits', () => ({
      kind: 'saved',
      patient: patient(),
      notes: [refusal('demographic.benefits.add.0.memberId', 'Adding insurance needs its memberId')],
    }));
    button(root, 'Add insurance').click();
    flushSync();
    type(byLabel(root, 'BIN'), '610014');
    type(byLabel(root, 'Group id'), 'RX77');
    flushSync();
    button(root, 'Add insurance').click();
    await settle();

    expect(fake.callsOf('edit_benefits')[0]?.args.edit).toEqual({
      kind: 'add',
      benefit: { bin: '610014', pcn: '', groupId: 'RX77', memberId: '' },
    });
    const member = byLabel(root, 'Member id');
    expect(member.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(member.getAttribute('aria-describedby') ?? '')?.textContent).toBe('Adding insurance needs its memberId');
    expect(byLabel(root, 'BIN').value).toBe('610014');
    expect(byLabel(root, 'Group id').value).toBe('RX77');
  });

  it('corrects a card on file, sending the card as it was shown', async () => {
    let record = patient({ benefits: [CARD] });
    const { fake, root } = await open(() => record);
    fake.on('edit_benefits', () => {
      record = patient({ benefits: [{ ...CARD, id: 'ben_2', memberId: 'M999' }] });
      return { kind: 'saved', patient: record, notes: [] };
    });
    button(root, 'Correct').click();
    flushSync();
    expect(byLabel(root, 'Member id').value).toBe('M123456');
    type(byLabel(root, 'Member id'), 'M999');
    flushSync();
    button(root, 'Save correction').click();
    await settle();

    expect(fake.callsOf('edit_benefits')[0]?.args.edit).toEqual({
      kind: 'correct',
      onFile: CARD,
      benefit: { bin: '610014', pcn: '', groupId: 'RX77', memberId: 'M999' },
    });
    expect(root.querySelector('[aria-label="Insurance"]')?.textContent).toContain('member M999');
    expect(buttons(root, 'Save correction')).toHaveLength(0);
  });

  it('removes a card by its id', async () => {
    const { fake, root } = await open(() => patient({ benefits: [CARD] }));
    fake.on('edit_benefits', () => ({ kind: 'saved', patient: patient(), notes: [] }));
    button(root, 'Remove insurance M123456').click();
    await settle();

    expect(fake.callsOf('edit_benefits')[0]?.args.edit).toEqual({ kind: 'remove', id: 'ben_1' });
    expect(root.querySelector('[aria-label="Insurance"]')?.textContent).toContain('No insurance on file');
  });

  it('after a lost answer, Try again reads the record and does not add a card the first attempt saved', async () => {
    let record = patient();
    const { fake, root } = await open(() => record);
    fake.on('edit_benefits', () => {
      // Saved at the network; the answer is lost on the way back.
      record = patient({ benefits: [{ ...CARD, groupId: null }] });
      throw { kind: 'network', message: 'the connection was lost' };
    });
    button(root, 'Add insurance').click();
    flushSync();
    type(byLabel(root, 'BIN'), '610014');
    type(byLabel(root, 'Member id'), 'M123456');
    flushSync();
    button(root, 'Add insurance').click();
    await settle();
    button(root, 'Try again').click();
    await settle();

    expect(fake.callsOf('edit_benefits')).toHaveLength(1);
    expect(root.querySelector('[aria-label="Insurance"]')?.textContent).toContain('member M123456');
  });
});

describe('the patient page: preferred pharmacy and medication status', () => {
  it('chooses the preferred pharmacy with the orders’ search and shows it', async () => {
    const { fake, root } = await open(() => patient());
    fake
      .on('find_preferred_pharmacy', () => ({
        kind: 'options',
        options: [
          {
            label: 'Harbor Drug Back Bay, 1 Boylston St, Boston', reason: '0.4 miles away', argument: 'demographic.preferredPharmacy.id', value: 'phr_back_bay', exact: false,
            offers: [],
          },
        ],
      }))
      .on('choose_preferred_pharmacy', () => ({ kind: 'saved', patient: patient({ preferredPharmacy: BACK_BAY }), notes: [] }));
    expect(root.querySelector('[aria-label="Preferred pharmacy"]')?.textContent).toContain('None chosen');
    button(root, 'Choose a preferred pharmacy').click();
    flushSync();
    type(byLabel(root, 'Pharmacy name'), 'Harbor');
    type(byLabel(root, 'Near (postal code, city, or latitude, longitude)'), '02116');
    flushSync();
    button(root, 'Find pharmacies').click();
    await settle();
    expect(root.querySelector('[aria-label="Pharmacies found"]')?.textContent).toContain('0.4 miles away');
    button(root, 'Choose Harbor Drug Back Bay, 1 Boylston St, Boston').click();
    await settle();

    expect(fake.callsOf('find_preferred_pharmacy')[0]?.args).toEqual({
      action: expect.any(String), id: 'pat_1', search: { name: 'Harbor', near: '02116', fulfillment: null },
    });
    expect(fake.callsOf('choose_preferred_pharmacy')[0]?.args).toEqual({ action: expect.any(String), id: 'pat_1', pharmacyId: 'phr_back_bay' });
    expect(root.querySelector('[data-testid="preferred-pharmacy"]')?.textContent).toContain('Harbor Drug Back Bay');
  });

  it('changes a medication’s status with the update patch', async () => {
    const lisinopril = { id: 'med_1', name: 'Lisinopril', code: null, status: 'ACTIVE' as const };
    const { fake, root } = await open(() => patient({ medications: [lisinopril] }));
    fake.on('edit_clinical', () => ({ kind: 'saved', patient: patient({ medications: [{ ...lisinopril, status: 'HISTORICAL' }] }), notes: [] }));
    const select = byLabel(root, 'Status of Lisinopril') as unknown as HTMLSelectElement;
    select.value = 'HISTORICAL';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();

    expect(fake.callsOf('edit_clinical')[0]?.args.edit.updateMedications).toEqual([{ id: 'med_1', status: 'HISTORICAL' }]);
    expect((byLabel(root, 'Status of Lisinopril') as unknown as HTMLSelectElement).value).toBe('HISTORICAL');
  });
});
