// Why an order cannot be sent yet, in words for the Send button.
import type { Order } from '../bindings/ipc';

export function unsignedCount(order: Order): number {
  return order.prescriptions.filter((p) => p.state === 'DRAFT').length;
}

/** `null` when the order can be sent, else the reason. */
export function sendBlockedReason(order: Order): string | null {
  if (order.state !== 'DRAFT') return `Already ${order.state.toLowerCase()}`;
  const n = unsignedCount(order);
  if (n === 1) return "1 prescription awaits a prescriber's signature";
  if (n > 1) return `${n} prescriptions await a prescriber's signature`;
  const canceled = order.prescriptions.filter((p) => p.state === 'CANCELED').length;
  if (canceled === 1) return '1 prescription was canceled';
  if (canceled > 1) return `${canceled} prescriptions were canceled`;
  return null;
}

export function sendLabel(order: Order): string {
  const reason = sendBlockedReason(order);
  return reason ? `Send — ${reason}` : 'Send';
}
