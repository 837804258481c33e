// What each action needs, and who has it, so the UI can say so before the
// network does. The network's own refusal is still what the user sees on click.
export type Action =
  | 'writePatient'
  | 'draftPrescription'
  | 'signPrescription'
  | 'draftOrder'
  | 'sendOrder'
  | 'cancelOrder';

interface Need {
  permission: string;
  verb: string;
  who: string;
}

export const NEEDS: Record<Action, Need> = {
  writePatient: { permission: 'write:patient', verb: 'Changing patients', who: 'prescribers and medical operations' },
  draftPrescription: { permission: 'read:prescription', verb: 'Drafting prescriptions', who: 'prescribers and medical operations' },
  signPrescription: { permission: 'write:prescription', verb: 'Signing', who: 'prescribers only' },
  draftOrder: { permission: 'read:order', verb: 'Drafting orders', who: 'prescribers and medical operations' },
  sendOrder: { permission: 'write:order', verb: 'Sending orders', who: 'prescribers and medical operations' },
  cancelOrder: { permission: 'write:order', verb: 'Canceling orders', who: 'prescribers and medical operations' },
};

/** `null` when `permissions` allow the action, else the sentence to show. */
export function missingPermissionNote(action: Action, permissions: readonly string[]): string | null {
  const need = NEEDS[action];
  if (permissions.includes(need.permission)) return null;
  return `${need.verb} needs ${need.permission} — ${need.who}`;
}
