import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import type { SignResult } from '../bindings/ipc';
import { EVENT_SIGNING } from '../bindings/ipc';
import { ADA_SESSION, MO_SESSION, button, install, prescription, refused, settle } from './fake';
import { go, startApp } from './harness';

function checkbox(root: ParentNode, label: string): HTMLInputElement {
  const l = [...root.querySelectorAll('label')].find((x) => x.textContent?.trim() === label);
  const el = l ? document.getElementById(l.getAttribute('for') ?? '') : null;
  if (!(el instanceof HTMLInputElement)) throw new Error(`no checkbox ${label}`);
  return el;
}

describe('review shows the whole prescription', () => {
  it('shows the diagnoses, the note to the pharmacy and dispense-as-written, each marked in or out of the content hash', async () => {
    const fake = install();
    const whole = prescription('rx_1', {
      drug: { id: 'd1', name: 'Amoxicillin 500 mg capsule', rxNormId: null },
      dispense: { quantity: 21, unit: 'capsule', daysSupply: 7, refills: 0, dispenseAsWritten: true },
      diagnoses: [{ id: 'dx_J02_9', name: 'Acute pharyngitis, unspecified', code: 'J02.9' }],
      notes: 'Blister packs, please.',
    });
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'review', items: [{ prescription: whole, patientName: 'Jane Doe' }] });

    const item = root.querySelector('[data-testid="review-item"]') as HTMLElement;
    const value = (testid: string) => item.querySelector(`[data-testid="${testid}"]`)?.textContent?.replace(/\s+/g, ' ').trim();
    expect(value('diagnoses')).toBe('J02.9 Acute pharyngitis, unspecified not in the content hash');
    expect(value('pharmacy-note')).toBe('Blister packs, please. not in the content hash');
    expect(value('daw')).toBe('Yes — no substitution in the content hash');
    expect(root.querySelector('[data-testid="hash-scope"]')?.textContent).toContain('dispense as written included');
    expect(root.querySelector('[data-testid="hash-scope"]')?.textContent).toContain('The diagnoses and the note to the pharmacy are signed with the');
  });
});

describe('drafts awaiting signature', () => {
  it('cannot select a BLOCKED draft, and says what blocks it', async () => {
    const fake = install();
    const blocked = prescription('rx_2', {
      status: 'BLOCKED',
      drug: { id: 'd2', name: 'Amoxicillin', rxNormId: null },
      alerts: [{ severity: 'MAJOR', kind: 'ALLERGEN', description: 'Patient is allergic to penicillins', involved: ['Penicillin'], alternatives: [] }],
    });
    const ready = prescription('rx_1', { drug: { id: 'd1', name: 'Lisinopril', rxNormId: null } });
    fake.on('work_lists', () => ({
      recentPatients: [],
      drafts: [
        { prescription: ready, patientName: 'Jane Doe' },
        { prescription: blocked, patientName: 'Jane Doe' },
      ],
      openOrders: [],
      dropped: 0,
    }));
    const root = await startApp(fake, ADA_SESSION);

    expect(checkbox(root, 'Select Amoxicillin for Jane Doe').disabled).toBe(true);
    expect(root.textContent).toContain('Blocked by screening: Patient is allergic to penicillins');
    checkbox(root, 'Select all drafts').click();
    flushSync();
    expect(checkbox(root, 'Select Lisinopril for Jane Doe').checked).toBe(true);
    expect(checkbox(root, 'Select Amoxicillin for Jane Doe').checked).toBe(false);
    expect(button(root, 'Review and sign selected (1)')).toBeTruthy();
  });

  it('says how many records left the network and were dropped from the lists', async () => {
    const fake = install();
    fake.on('work_lists', () => ({ recentPatients: [], drafts: [], openOrders: [], dropped: 2 }));
    const root = await startApp(fake, ADA_SESSION);
    expect(root.textContent).toContain('2 records are no longer on the network and were removed from this list.');
  });

  it('says in words that no draft is waiting', async () => {
    const fake = install();
    const root = await startApp(fake, ADA_SESSION);
    expect(root.textContent).toContain('No drafts waiting for a signature.');
    expect(root.textContent).not.toContain('records are no longer on the network');
  });
});

describe('review and sign', () => {
  it('signs with the content hash of what the screen shows', async () => {
    const fake = install();
    const shown = prescription('rx_1', { contentHash: 'sha256:shown' });
    fake.on('sign_prescriptions', ({ items }) =>
      items.map((i): SignResult => ({ kind: 'signed', prescription: { ...shown, id: i.id, signing: 'SIGNED', status: null } })),
    );
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'review', items: [{ prescription: shown, patientName: 'Jane Doe' }] });
    expect(root.querySelector('[data-testid="review-item"]')?.textContent).toContain('One tablet daily');
    button(root, 'Sign 1 prescription').click();
    await settle();

    expect(fake.callsOf('sign_prescriptions')[0]?.args).toEqual({ action: expect.any(String), items: [{ id: 'rx_1', contentHash: 'sha256:shown' }] });
    expect(root.querySelector('[data-testid="sign-result"]')?.textContent).toContain('Signed');
    expect(button(root, 'Sign 0 prescriptions').disabled).toBe(true);
  });

  it('shows the new content of an invalidated draft, and signs it again with the new hash after Review again', async () => {
    const fake = install();
    const old = prescription('rx_1', { contentHash: 'hash-old', instructions: 'One tablet daily' });
    const current = prescription('rx_1', { contentHash: 'hash-new', instructions: 'Two tablets daily' });
    let round = 0;
    fake.on('sign_prescriptions', () => {
      round += 1;
      return round === 1
        ? [{ kind: 'invalidated', current, reason: 'The instructions changed after you opened it.' }]
        : [{ kind: 'signed', prescription: { ...current, signing: 'SIGNED', status: null } }];
    });
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'review', items: [{ prescription: old, patientName: 'Jane Doe' }] });
    button(root, 'Sign 1 prescription').click();
    await settle();

    const result = root.querySelector('[data-testid="sign-result"]')?.textContent ?? '';
    expect(result).toContain('This prescription changed since you opened it');
    expect(result).toContain('The instructions changed after you opened it.');
    expect(root.querySelector('[data-testid="new-content"]')?.textContent).toContain('Two tablets daily');
    // Not signable again until reviewed.
    expect(button(root, 'Sign 0 prescriptions').disabled).toBe(true);

    button(root, 'Review again').click();
    flushSync();
    button(root, 'Sign 1 prescription').click();
    await settle();
    expect(fake.callsOf('sign_prescriptions')[1]?.args).toEqual({ action: expect.any(String), items: [{ id: 'rx_1', contentHash: 'hash-new' }] });
  });

  it('lists a BLOCKED draft with its reason but does not send it to be signed', async () => {
    const fake = install();
    const blocked = prescription('rx_2', {
      status: 'BLOCKED',
      alerts: [{ severity: 'MAJOR', kind: 'DRUG', description: 'Interacts with warfarin', involved: ['Warfarin'], alternatives: [] }],
    });
    fake.on('sign_prescriptions', () => [{ kind: 'signed', prescription: prescription('rx_1', { signing: 'SIGNED' }) }]);
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'review', items: [{ prescription: prescription('rx_1'), patientName: null }, { prescription: blocked, patientName: null }] });

    expect(root.textContent).toContain('BLOCKED — this draft cannot be signed');
    expect(root.textContent).toContain('blocked by screening: Interacts with warfarin');
    button(root, 'Sign 1 prescription').click();
    await settle();
    expect(fake.callsOf('sign_prescriptions')[0]?.args.items.map((i) => i.id)).toEqual(['rx_1']);
  });

  it('shows a refused signature with its code, message and required permission as the network gave them', async () => {
    const fake = install();
    const refusal = refused('PRESCRIPTION_SIGNING_UNAUTHORIZED', 'The caller is not authorized to sign prescriptions', 'write:prescription');
    fake.on('sign_prescriptions', () => [{ kind: 'failed', id: 'rx_1', error: refusal }]);
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'review', items: [{ prescription: prescription('rx_1'), patientName: 'Jane Doe' }] });
    // Marked before the click, and still clickable: the network's answer counts.
    expect(root.textContent).toContain('Signing needs write:prescription — prescribers only');
    button(root, 'Sign 1 prescription').click();
    await settle();

    expect(root.querySelector('[data-testid="refusal-code"]')?.textContent).toBe('PRESCRIPTION_SIGNING_UNAUTHORIZED');
    expect(root.querySelector('[data-testid="refusal-permission"]')?.textContent).toBe('write:prescription');
    expect(root.querySelector('[data-testid="refusal"]')?.textContent).toContain('The caller is not authorized to sign prescriptions');
  });

  it('shows signing progress from the signing events while the batch runs', async () => {
    const fake = install();
    let finish: (r: SignResult[]) => void = () => {};
    fake.on('sign_prescriptions', () => new Promise<SignResult[]>((resolve) => (finish = resolve)));
    const root = await startApp(fake, ADA_SESSION);
    await go({
      name: 'review',
      items: [
        { prescription: prescription('rx_1'), patientName: null },
        { prescription: prescription('rx_2'), patientName: null },
      ],
    });
    button(root, 'Sign 2 prescriptions').click();
    await settle();
    expect(root.textContent).toContain('Signing 0 of 2');
    fake.emit(EVENT_SIGNING, { done: 1, total: 2 });
    flushSync();
    expect(root.textContent).toContain('Signing 1 of 2');
    expect((root.querySelector('progress') as HTMLProgressElement).value).toBe(1);
    finish([
      { kind: 'signed', prescription: prescription('rx_1', { signing: 'SIGNED' }) },
      { kind: 'rejected', id: 'rx_2', reasons: [{ key: 'signing', label: 'Signature', status: 'REJECTED', severity: 'BLOCKING', reason: 'already signed', options: [] }] },
    ]);
    await settle();
    expect(root.textContent).not.toContain('Signing 1 of 2');
    expect(root.textContent).toContain('Not signed: already signed');
  });
});
