import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import type { TemplateView } from '../bindings/ipc';
import { ADA_SESSION, button, byLabel, install, patient, prescription, settle, type } from './fake';
import { go, startApp } from './harness';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LISINOPRIL: TemplateView = {
  id: 'tmpl_maple_lisinopril_10_daily',
  name: 'Lisinopril 10 mg daily',
  drugName: 'Lisinopril 10 MG Oral Tablet',
};

function press(target: Element, key: string): void {
  target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  flushSync();
}

async function draftForm() {
  const fake = install();
  fake
    .on('get_patient', () => patient())
    .on('find_templates', ({ query }) => (LISINOPRIL.name?.toLowerCase().includes(query.toLowerCase()) ? [LISINOPRIL] : []))
    .on('save_draft', () => ({ kind: 'saved', prescription: prescription('rx_9'), notes: [] }));
  const root = await startApp(fake, ADA_SESSION);
  await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
  return { fake, root, box: byLabel(root, 'Template') };
}

describe('templates on the draft form', () => {
  it('offers a template used here by name as you type, chosen with the keyboard and sent by id', async () => {
    const { fake, root, box } = await draftForm();

    type(box, 'lisin');
    await wait(150);
    await settle();
    const options = [...root.querySelectorAll('[role="listbox"] [role="option"]')];
    expect(box.getAttribute('role')).toBe('combobox');
    expect(box.getAttribute('aria-expanded')).toBe('true');
    expect(options.map((o) => o.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      'Lisinopril 10 mg daily Lisinopril 10 MG Oral Tablet · tmpl_maple_lisinopril_10_daily',
    ]);
    press(box, 'ArrowDown');
    expect(box.getAttribute('aria-activedescendant')).toBe(options[0]?.id);
    expect(options[0]?.getAttribute('aria-selected')).toBe('true');
    press(box, 'Enter');

    expect(box.value).toBe(LISINOPRIL.id);
    expect(box.getAttribute('aria-expanded')).toBe('false');
    expect(root.textContent).toContain('Chosen: Lisinopril 10 mg daily');
    button(root, 'Save draft').click();
    await settle();
    expect(fake.callsOf('find_templates')[0]?.args).toEqual({ query: 'lisin' });
    expect(fake.callsOf('save_draft')[0]?.args.form.templateId).toBe(LISINOPRIL.id);
  });

  it('sends a pasted template id as it is when no template used here matches, and Escape closes the list', async () => {
    const { fake, root, box } = await draftForm();

    type(box, 'tmpl_birch_metformin_starter');
    await wait(150);
    await settle();
    expect(root.textContent).toContain('No template drafted from here matches “tmpl_birch_metformin_starter”');
    press(box, 'Escape');
    button(root, 'Save draft').click();
    await settle();

    expect(root.textContent).not.toContain('No template drafted from here matches');
    expect(fake.callsOf('save_draft')[0]?.args.form.templateId).toBe('tmpl_birch_metformin_starter');
  });
});
