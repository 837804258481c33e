import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { MO_SESSION, button, buttons, byLabel, install, order, prescription, settle, type } from './fake';
import { go, startApp } from './harness';

function orderApp() {
  const fake = install();
  fake.on('get_order', () => order()).on('patient_work', () => ({ prescriptions: [prescription('rx_1')], orders: [order()] }));
  return fake;
}

describe('an order', () => {
  it('shows a draft order only with the prescriptions it can take, so its buttons do not move under the pointer', async () => {
    const fake = install();
    let answerWork: (() => void) | undefined;
    fake.on('get_order', () => order()).on(
      'patient_work',
      () =>
        new Promise((resolve) => {
          answerWork = () => resolve({ prescriptions: [prescription('rx_1'), prescription('rx_2')], orders: [order()] });
        }),
    );
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'order', id: 'ord_1', notes: [] });
    expect(buttons(root, 'Send order')).toHaveLength(0);

    answerWork?.();
    await settle();

    expect(buttons(root, 'Send order')).toHaveLength(1);
    expect(root.textContent).toContain('Prescriptions to add');
  });

  it('lists pharmacy options with their offers, and chooses the one clicked', async () => {
    const fake = orderApp();
    fake
      .on('find_pharmacies', () => ({
        kind: 'options',
        options: [
          {
            label: 'Corner Pharmacy, 1 Main St', reason: '0.4 miles away', argument: 'pharmacyId', value: 'ph_1', exact: false,
            offers: [{ source: 'net', promoted: false, tags: ['Pick-up'], price: { kind: 'cash', total: 4, retail: 12.99, savings: 8.99 }, delivery: ['Pick-up today after 3 pm'] }],
          },
          {
            label: 'MailRx', reason: null, argument: 'pharmacyId', value: 'ph_2', exact: false,
            offers: [{ source: 'net', promoted: true, tags: ['Mail order'], price: null, delivery: ['Mail order, 2–3 days'] }],
          },
        ],
      }))
      .on('choose_pharmacy', () => ({
        kind: 'saved',
        order: order({ pharmacy: { id: 'ph_2', name: 'MailRx', address: 'PO Box 1', fulfillment: ['MAIL_ORDER'] } }),
        notes: [],
      }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'order', id: 'ord_1', notes: [] });
    expect(root.textContent).toContain('The patient chooses the pharmacy');
    type(byLabel(root, 'Pharmacy name'), 'Rx');
    type(byLabel(root, 'Near (postal code, city, or latitude, longitude)'), 'Main St');
    (root.querySelector('input[type="radio"][value="MAIL_ORDER"]') as HTMLInputElement).click();
    flushSync();
    button(root, 'Find pharmacies').click();
    await settle();

    expect(fake.callsOf('find_pharmacies')[0]?.args).toEqual({ action: expect.any(String), orderId: 'ord_1', search: { name: 'Rx', near: 'Main St', fulfillment: 'MAIL_ORDER' } });
    const list = root.querySelector('[aria-label="Pharmacies found"]');
    const items = [...(list?.querySelectorAll(':scope > li') ?? [])];
    expect(items[0]?.textContent).toContain('0.4 miles away');
    expect(items[0]?.textContent).toContain('$4.00 cash price · list $12.99 · saves $8.99');
    expect(items[0]?.textContent).toContain('Pick-up today after 3 pm');
    expect(items[1]?.textContent).toContain('Mail order, 2–3 days');
    expect(items[1]?.textContent).toContain('No price given');
    expect(items[1]?.textContent).toContain('(promoted)');
    button(root, 'Choose MailRx').click();
    await settle();
    expect(fake.callsOf('choose_pharmacy')[0]?.args).toEqual({ action: expect.any(String), orderId: 'ord_1', pharmacyId: 'ph_2' });
    expect(root.textContent).toContain('MailRx, PO Box 1');
  });

  it('sends a radius with a latitude and longitude, and refuses one that is not whole miles without sending', async () => {
    const fake = orderApp();
    fake.on('find_pharmacies', () => ({ kind: 'options', options: [] }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'order', id: 'ord_1', notes: [] });
    type(byLabel(root, 'Near (postal code, city, or latitude, longitude)'), '42.35, -71.07');
    type(byLabel(root, 'Within (miles, around a latitude, longitude)'), '2.5');
    button(root, 'Find pharmacies').click();
    await settle();

    expect(fake.callsOf('find_pharmacies')).toHaveLength(0);
    expect(root.textContent).toContain('The radius is a whole number of miles, at least 1.');

    type(byLabel(root, 'Within (miles, around a latitude, longitude)'), '3');
    button(root, 'Find pharmacies').click();
    await settle();

    expect(fake.callsOf('find_pharmacies')[0]?.args).toEqual({
      action: expect.any(String),
      orderId: 'ord_1',
      search: { name: null, near: '42.35, -71.07', radiusMiles: 3, fulfillment: null },
    });
  });

  it('shows why the network did not send the order, with its reasons, in place', async () => {
    const fake = orderApp();
    fake.on('send_order', () => ({
      kind: 'saved',
      order: order(),
      notes: [
        { key: 'order.prescriptions.0', label: 'Drug rx_1', status: 'REJECTED', severity: 'BLOCKING', reason: 'The prescription is not signed yet', options: [] },
        { key: 'order.patient.phone', label: 'PATIENT_PHONE_CANNOT_RECEIVE_TEXTS', status: 'REJECTED', severity: 'BLOCKING', reason: 'The patient has no phone that takes texts', options: [] },
      ],
    }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'order', id: 'ord_1', notes: [] });
    button(root, 'Send order').click();
    await settle();

    const notes = root.querySelector('[data-testid="notes"]');
    expect(notes?.getAttribute('role')).toBe('alert');
    expect(notes?.textContent).toContain('Not sent. The network said:');
    expect(notes?.textContent).toContain('The prescription is not signed yet');
    expect(notes?.textContent).toContain('PATIENT_PHONE_CANNOT_RECEIVE_TEXTS');
    expect(notes?.textContent).toContain('The patient has no phone that takes texts');
    expect(root.querySelector('[data-testid="order-state"]')?.textContent).toBe('Draft');
  });

  it('cancels a submitted order and then shows it as Canceled', async () => {
    const fake = install();
    fake
      .on('get_order', () => order({ state: 'SUBMITTED' }))
      .on('cancel_order', () => ({ kind: 'saved', order: order({ state: 'CANCELED' }), notes: [] }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'order', id: 'ord_1', notes: [] });
    expect(root.querySelector('[data-testid="order-state"]')?.textContent).toBe('Submitted');
    button(root, 'Cancel order').click();
    await settle();
    expect(root.querySelector('[data-testid="order-state"]')?.textContent).toBe('Canceled');
  });
});
