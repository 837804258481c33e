import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { fieldKey, fieldProblems, noteField } from '../lib/forms.svelte';
import { byLabel, button, install, patient, settle, type, MO_SESSION } from './fake';
import { go, startApp } from './harness';

describe('the patient form', () => {
  it('puts each problem of a not-saved answer beside the field its key names', async () => {
    const fake = install();
    fake.on('save_patient', () => ({
      kind: 'notSaved',
      problems: [
        { key: 'demographic.dateOfBirth', label: 'Date of birth', status: 'REJECTED', severity: 'BLOCKING', reason: 'is in the future', options: [] },
        { key: 'demographic.email', label: 'Email', status: 'REJECTED', severity: 'BLOCKING', reason: 'is not an email address', options: [] },
      ],
    }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'addPatient', key: 'patient-new-test' });
    type(byLabel(root, 'First name'), 'Ada');
    type(byLabel(root, 'Last name'), 'Lovelace');
    type(byLabel(root, 'Date of birth'), '2999-01-01');
    type(byLabel(root, 'Email'), 'ada.at.example');
    flushSync();
    button(root, 'Add patient').click();
    await settle();

    const dob = byLabel(root, 'Date of birth');
    expect(dob.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(dob.getAttribute('aria-describedby') ?? '')?.textContent).toBe('is in the future');
    const email = byLabel(root, 'Email');
    expect(document.getElementById(email.getAttribute('aria-describedby') ?? '')?.textContent).toBe('is not an email address');
    expect(byLabel(root, 'First name').getAttribute('aria-invalid')).toBe('false');
    expect(root.querySelector('[data-testid="problems"]')?.textContent).toContain('Date of birth: is in the future');
    // What was typed stays.
    expect(byLabel(root, 'Email').value).toBe('ada.at.example');
  });

  it('shows candidates with an Open button each, keeps the form filled and opens nobody', async () => {
    const fake = install();
    fake.on('save_patient', () => ({
      kind: 'candidates',
      reason: 'A patient with this name and date of birth is already on record.',
      candidates: [{ id: 'pat_7', name: 'Grace Hopper', dateOfBirth: '1906-12-09' }],
    }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'addPatient', key: 'patient-new-test' });
    type(byLabel(root, 'First name'), 'Grace');
    type(byLabel(root, 'Last name'), 'Hopper');
    type(byLabel(root, 'Date of birth'), '1906-12-09');
    flushSync();
    button(root, 'Add patient').click();
    await settle();

    expect(root.querySelector('h3')?.textContent).toBe('Already on record?');
    expect(root.textContent).toContain('A patient with this name and date of birth is already on record.');
    expect(button(root, 'Open Grace Hopper')).toBeTruthy();
    expect(root.textContent).toContain('adding anyway needs more detail');
    expect(byLabel(root, 'First name').value).toBe('Grace');
    expect(fake.callsOf('get_patient')).toHaveLength(0);
  });

  it('opens the saved patient with the notes the network returned', async () => {
    const fake = install();
    fake
      .on('save_patient', () => ({
        kind: 'saved',
        patient: patient({ id: 'pat_9', fullName: 'Grace Hopper' }),
        notes: [{ key: 'demographic.phone', label: 'Phone', status: 'REJECTED', severity: 'ADVISORY', reason: 'does not take texts', options: [] }],
      }))
      .on('get_patient', () => patient({ id: 'pat_9', fullName: 'Grace Hopper' }))
      .on('patient_work', () => ({ prescriptions: [], orders: [] }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'addPatient', key: 'patient-new-test' });
    type(byLabel(root, 'First name'), 'Grace');
    flushSync();
    button(root, 'Add patient').click();
    await settle();

    expect(root.querySelector('h2')?.textContent).toBe('Grace Hopper');
    expect(root.querySelector('[data-testid="notes"]')?.textContent).toContain('does not take texts');
  });
});

it('maps server field paths and note keys onto form fields', () => {
  expect(fieldKey('input.name.first', { first: 'firstName' })).toBe('firstName');
  expect(fieldKey('input.dateOfBirth')).toBe('dateOfBirth');
  expect(noteField('demographic.name.first', { firstName: ['demographic.name.first'] })).toBe('firstName');
  expect(noteField('draft.dispense.quantity', { quantity: ['quantity'] })).toBe('quantity');
  expect(noteField('demographic.sex', { email: ['email'] })).toBeNull();
  const note = { key: 'x.unit', label: 'Unit', status: 'REJECTED' as const, severity: 'BLOCKING' as const, reason: null, options: [] };
  expect(fieldProblems([note], { unit: ['unit'] })).toEqual({ unit: 'Unit' });
});
