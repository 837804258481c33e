// After Send: what the pharmacy did shows in a Get (pharmacy, exceptions).
// Work flags the orders that need attention and fetches the open orders again
// at most once a minute while it is open; the order page lists the exceptions
// with their time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OrderView } from '../bindings/ipc';
import { MO_SESSION, button, buttons, install, order, settle } from './fake';
import { go, startApp } from './harness';

const BACK_BAY = { id: 'phr_back_bay', name: 'Harbor Drug Back Bay', address: '1 Boylston St, Boston', fulfillment: ['PICK_UP' as const] };
const CLOSED: OrderView = order({
  id: 'ord_closed',
  state: 'SUBMITTED',
  patientName: 'Jane Doe',
  pharmacy: BACK_BAY,
  exceptions: [
    {
      kind: 'PHARMACY_CLOSED',
      message: 'Harbor Drug North End is closed: the order was rerouted to Harbor Drug Back Bay',
      createdAt: '2026-11-25T09:30:05.000Z',
    },
  ],
});

afterEach(() => {
  vi.useRealTimers();
});

function workApp(openOrders: () => OrderView[]) {
  const fake = install();
  fake.on('work_lists', () => ({ recentPatients: [], drafts: [], openOrders: openOrders(), dropped: 0 }));
  fake.on('open_orders', () => openOrders());
  return fake;
}

describe('orders after Send', () => {
  it('Work flags an order whose pharmacy was closed, with the pharmacy it was rerouted to', async () => {
    const fake = workApp(() => [order({ id: 'ord_fine', state: 'SUBMITTED' }), CLOSED]);
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'work' });

    const attention = root.querySelector('[aria-label="Orders that need attention"]');
    expect(attention?.querySelectorAll('li')).toHaveLength(1);
    expect(attention?.textContent).toContain('Needs attention: pharmacy closed, rerouted to Harbor Drug Back Bay');
    expect(attention?.textContent).toContain('Order for Jane Doe');
    expect(attention?.querySelector('time')?.getAttribute('datetime')).toBe('2026-11-25T09:30:05.000Z');
  });

  it('Change pharmacy on a Needs attention row opens the sent order with the pharmacy search, and the choice is sent', async () => {
    const fake = workApp(() => [CLOSED]);
    fake
      .on('get_order', () => CLOSED)
      .on('find_pharmacies', () => ({
        kind: 'options',
        options: [
          {
            label: 'Harbor Drug North End, 210 Hanover Street, Boston', reason: '0.9 miles away', argument: 'pharmacy.pharmacy.id', value: 'phr_north_end', exact: false,
            offers: [{ source: 'net', promoted: false, tags: ['Pick-up'], price: null, delivery: ['Ready for pick-up in about an hour'] }],
          },
        ],
      }))
      .on('choose_pharmacy', () => ({ kind: 'saved', order: { ...CLOSED, pharmacy: { ...BACK_BAY, id: 'phr_north_end', name: 'Harbor Drug North End' }, exceptions: [] }, notes: [] }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'work' });

    button(root, 'Change pharmacy for Jane Doe').click();
    await settle();
    expect(root.querySelector('form[aria-label="Find a pharmacy"]')).not.toBeNull();
    button(root, 'Find pharmacies').click();
    await settle();
    button(root, 'Choose Harbor Drug North End, 210 Hanover Street, Boston').click();
    await settle();

    expect(fake.callsOf('choose_pharmacy')[0]?.args).toEqual({ action: expect.any(String), orderId: 'ord_closed', pharmacyId: 'phr_north_end' });
    expect(root.textContent).toContain('Harbor Drug North End');
    expect(root.textContent).not.toContain('Needs attention: pharmacy closed');
  });

  it('a sent order keeps its pharmacy search closed until Change pharmacy is pressed', async () => {
    const fake = install();
    fake.on('get_order', () => CLOSED);
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'order', id: 'ord_closed', notes: [] });
    expect(root.querySelector('form[aria-label="Find a pharmacy"]')).toBeNull();

    button(root, 'Change pharmacy').click();
    await settle();

    expect(root.querySelector('form[aria-label="Find a pharmacy"]')).not.toBeNull();
    expect(buttons(root, 'Let the patient choose')).toHaveLength(1);
  });

  it('Work fetches the open orders again once a minute while open, and shows what changed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let orders: OrderView[] = [order({ id: 'ord_closed', state: 'SUBMITTED' })];
    const fake = workApp(() => orders);
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'work' });
    expect(root.textContent).not.toContain('Needs attention');
    orders = [CLOSED];

    vi.advanceTimersByTime(59_000);
    await settle();
    expect(fake.callsOf('open_orders')).toHaveLength(0);
    vi.advanceTimersByTime(1_000);
    await settle();

    expect(fake.callsOf('open_orders')).toHaveLength(1);
    expect(root.textContent).toContain('Needs attention: pharmacy closed, rerouted to Harbor Drug Back Bay');
  });

  it('Work stops fetching when another screen is shown', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const fake = workApp(() => [CLOSED]);
    fake.on('patient_work', () => ({ prescriptions: [], orders: [] }));
    fake.on('find_patients', () => []);
    await startApp(fake, MO_SESSION);
    await go({ name: 'work' });
    await go({ name: 'patients' });

    vi.advanceTimersByTime(5 * 60_000);
    await settle();

    expect(fake.callsOf('open_orders')).toHaveLength(0);
  });

  it('a failed refresh says so and keeps the orders as last fetched', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const fake = workApp(() => [CLOSED]);
    fake.on('open_orders', () => Promise.reject({ kind: 'network', message: 'the network did not answer' }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'work' });

    vi.advanceTimersByTime(60_000);
    await settle();

    expect(root.querySelector('[role="alert"]')?.textContent).toContain('The open orders could not be refreshed');
    expect(root.textContent).toContain('Needs attention: pharmacy closed, rerouted to Harbor Drug Back Bay');
  });

  it('the order page lists each exception in words, with its time', async () => {
    const fake = install();
    fake.on('get_order', () => CLOSED).on('patient_work', () => ({ prescriptions: [], orders: [CLOSED] }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'order', id: 'ord_closed', notes: [] });

    const list = root.querySelector('[aria-label="Exceptions, latest first"]');
    expect(list?.textContent).toContain('pharmacy closed');
    expect(list?.textContent).toContain('the order was rerouted to Harbor Drug Back Bay');
    expect(list?.querySelector('time')?.getAttribute('datetime')).toBe('2026-11-25T09:30:05.000Z');
    expect(root.textContent).toContain('Needs attention: pharmacy closed, rerouted to Harbor Drug Back Bay');
  });
});
