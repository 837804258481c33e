// After Send: what the pharmacy did shows in a Get (pharmacy, exceptions).
// Work flags the orders that need attention and fetches the open orders again
// at most once a minute while it is open; the order page lists the exceptions
// with their time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OrderView } from '../bindings/ipc';
import { MO_SESSION, install, order, settle } from './fake';
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
