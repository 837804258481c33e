// The network's vocabulary, in words. Colour is never the only signal: every
// status carries its own words (and an icon where it matters).
import type {
  AlertKind,
  AlertSeverity,
  ChangeNote,
  DispenseView,
  DraftStatus,
  Fulfillment,
  MedicationStatus,
  OrderState,
  Sex,
  SigningState,
} from '../bindings/ipc';

export const SEX_WORDS: Record<Sex, string> = { FEMALE: 'Female', MALE: 'Male', UNKNOWN: 'Unknown' };

export const MEDICATION_STATUS_WORDS: Record<MedicationStatus, string> = {
  ACTIVE: 'Active',
  HISTORICAL: 'Historical',
  UNKNOWN: 'Unknown',
};

export const SCREENING_ICON: Record<DraftStatus, string> = { READY: '✓', WARNING: '⚠', BLOCKED: '✖' };

export const SCREENING_WORDS: Record<DraftStatus, string> = {
  READY: 'READY',
  WARNING: 'WARNING — read the alerts before signing',
  BLOCKED: 'BLOCKED — this draft cannot be signed',
};

export const SIGNING_WORDS: Record<SigningState, string> = {
  UNSIGNED: 'Not signed',
  SIGNED: 'Signed',
  INVALIDATED_SIGN: 'Signature invalidated — changed since it was signed; review and sign again',
};

export const SEVERITY_WORDS: Record<AlertSeverity, string> = { MINOR: 'Minor', MODERATE: 'Moderate', MAJOR: 'Major' };

export const ALERT_KIND_WORDS: Record<AlertKind, string> = {
  DRUG: 'Drug interaction',
  ALLERGEN: 'Allergy',
  CONDITION: 'Condition',
};

export const ORDER_STATE_WORDS: Record<OrderState, string> = {
  DRAFT: 'Draft',
  SUBMITTED: 'Submitted',
  CANCELED: 'Canceled',
};

export const FULFILLMENT_WORDS: Record<Fulfillment, string> = { PICK_UP: 'Pick-up', MAIL_ORDER: 'Mail order' };

/** "30 tablet · 30 days supply · 2 refills", saying what is missing. */
export function dispenseText(d: DispenseView): string {
  const quantity = d.quantity === null ? 'quantity not given' : `${d.quantity} ${d.unit ?? ''}`.trim();
  const days = d.daysSupply === null ? 'days supply not given' : `${d.daysSupply} days supply`;
  const refills =
    d.refills === null ? 'refills not given' : d.refills === 1 ? '1 refill' : `${d.refills} refills`;
  const parts = [quantity, days, refills];
  if (d.dispenseAsWritten) parts.push('dispense as written');
  return parts.join(' · ');
}

/** How a note reads: what the network did with the input. */
export function noteHeading(note: ChangeNote): string {
  if (note.status === 'AMBIGUOUS') return 'Which one did you mean?';
  if (note.status === 'REJECTED') return note.severity === 'BLOCKING' ? 'Not applied (nothing was saved)' : 'Not applied';
  if (note.severity === 'ADVISORY') return 'Advisory';
  if (note.severity === 'BLOCKING') return 'Blocking';
  return 'Note';
}

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
