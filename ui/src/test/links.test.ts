import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { EVENT_OPEN_LINK } from '../bindings/ipc';
import { api } from '../lib/backend';
import { ADA_SESSION, button, byLabel, install, order, settle, status, type } from './fake';
import { go, startApp } from './harness';

describe('opening a link or id', () => {
  it('says in words why a link could not be read', async () => {
    const fake = install();
    fake.on('open_link', () => {
      throw { kind: 'invalid', code: 'INVALID_LINK', message: 'This is not an Rx Desk link or id.', field: 'link' };
    });
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'openLink' });
    type(byLabel(root, 'Link or id'), 'https://example.com');
    flushSync();
    button(root, 'Open').click();
    await settle();

    expect(root.querySelector('[role="alert"]')?.textContent).toContain('This is not an Rx Desk link or id.');
    expect(byLabel(root, 'Link or id').value).toBe('https://example.com');
    expect(root.querySelector('h2')?.textContent).toBe('Open link or id');
  });

  it('opens the record a link from the OS names', async () => {
    const fake = install();
    fake.on('get_order', () => order()).on('patient_work', () => ({ prescriptions: [], orders: [] }));
    const root = await startApp(fake, ADA_SESSION);
    fake.emit(EVENT_OPEN_LINK, { kind: 'open', target: { kind: 'order', id: 'ord_1' } });
    await settle();
    expect(fake.callsOf('get_order')[0]?.args).toEqual({ action: expect.any(String), id: 'ord_1' });
    expect(root.querySelector('h2')?.textContent).toBe('Order for Jane Doe');
    expect(document.activeElement).toBe(root.querySelector('h2'));
  });

  it('opens the record the app was started with', async () => {
    const fake = install();
    fake
      .on('app_status', () => ({ ...status(ADA_SESSION), link: { kind: 'open', target: { kind: 'order', id: 'ord_1' } } }))
      .on('get_order', () => order())
      .on('patient_work', () => ({ prescriptions: [], orders: [] }));
    const root = await startApp(fake, ADA_SESSION);
    expect(fake.callsOf('get_order')[0]?.args).toEqual({ action: expect.any(String), id: 'ord_1' });
    expect(root.querySelector('h2')?.textContent).toBe('Order for Jane Doe');
  });

  it('shows an invalid link from the OS as a message', async () => {
    const fake = install();
    const root = await startApp(fake, ADA_SESSION);
    fake.emit(EVENT_OPEN_LINK, { kind: 'invalid', message: 'The link names no record.' });
    await settle();
    expect(root.querySelector('[data-testid="link-message"]')?.textContent).toContain('The link names no record.');
  });
});

it('calls each command by its typed name with its arguments', async () => {
  const fake = install();
  fake.on('save_draft', () => ({ kind: 'notSaved', problems: [] }));
  await api.saveDraft('pat_1', null, 'key-1', { templateId: 'tpl_1', drugId: null, instructions: null, quantity: null, unit: null, daysSupply: null, refills: null, dispenseAsWritten: null, notes: null, addDiagnoses: [], removeDiagnoses: [] }, 'action-1');
  expect(fake.calls[0]).toEqual({
    cmd: 'save_draft',
    args: { action: 'action-1', patientId: 'pat_1', id: null, key: 'key-1', form: { templateId: 'tpl_1', drugId: null, instructions: null, quantity: null, unit: null, daysSupply: null, refills: null, dispenseAsWritten: null, notes: null, addDiagnoses: [], removeDiagnoses: [] } },
  });
});
