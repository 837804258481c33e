import { afterEach, describe, expect, it } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import PatientForm from '../components/PatientForm.svelte';
import { app } from '../lib/app.svelte';
import { fieldKey, isIsoDate } from '../lib/forms.svelte';
import { MO_SESSION, byLabel, button, install, settle, type } from './fake';

let instance: Record<string, unknown> | null = null;

afterEach(() => {
  if (instance) unmount(instance);
  instance = null;
  document.body.innerHTML = '';
});

describe('inline validation', () => {
  it("puts the network's Invalid message beside the field it names", async () => {
    const fake = install();
    app.session = MO_SESSION;
    fake.on('create_patient', () => {
      throw { kind: 'invalid', code: 'INVALID_INPUT', message: 'dateOfBirth is in the future', field: 'input.dateOfBirth' };
    });
    const target = document.createElement('div');
    document.body.appendChild(target);
    instance = mount(PatientForm, { target, props: { onsaved: () => {}, oncancel: () => {} } });
    flushSync();
    type(byLabel(target, 'First name'), 'Ada');
    type(byLabel(target, 'Last name'), 'Lovelace');
    type(byLabel(target, 'Date of birth'), '2999-01-01');
    flushSync();
    button(target, 'Create patient').click();
    await settle();

    const dob = byLabel(target, 'Date of birth');
    expect(dob.getAttribute('aria-invalid')).toBe('true');
    expect(dob.nextElementSibling?.textContent).toBe('dateOfBirth is in the future');
    expect(byLabel(target, 'First name').getAttribute('aria-invalid')).toBe('false');
  });

  it('checks required fields and the date format before asking the network', async () => {
    const fake = install();
    app.session = MO_SESSION;
    const target = document.createElement('div');
    document.body.appendChild(target);
    instance = mount(PatientForm, { target, props: { onsaved: () => {}, oncancel: () => {} } });
    flushSync();
    type(byLabel(target, 'Date of birth'), '12/09/1906');
    flushSync();
    button(target, 'Create patient').click();
    await settle();

    expect(fake.callsOf('create_patient')).toHaveLength(0);
    expect(target.textContent).toContain('First name is required.');
    expect(target.textContent).toContain('Write the date as YYYY-MM-DD');
  });

  it('maps server field paths onto form fields', () => {
    expect(fieldKey('input.name.first', { first: 'firstName' })).toBe('firstName');
    expect(fieldKey('treatmentId', { treatmentId: 'medication' })).toBe('medication');
    expect(fieldKey('input.dateOfBirth')).toBe('dateOfBirth');
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2023-02-29')).toBe(false);
  });
});
