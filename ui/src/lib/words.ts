// The network's vocabulary, in words. Colour is never the only signal: every
// status carries its own words (and an icon where it matters).
import type {
  AlertKind,
  AlertSeverity,
  ChangeNote,
  DispenseView,
  DraftStatus,
  ExceptionKind,
  ExceptionView,
  Fulfillment,
  MedicationStatus,
  OrderState,
  OrderView,
  PriceKind,
  PriceView,
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

export const PRICE_KIND_WORDS: Record<PriceKind, string> = { cash: 'cash price', insurance: 'with insurance', membership: 'with membership' };

function dollars(amount: number): string {
  return `$${amount.toFixed(2)}`;
}

/** "$4.00 cash price · list $12.99 · saves $8.99": only what the network gave. */
export function priceWords(price: PriceView): string {
  const parts: string[] = [];
  if (price.total !== null) {
    parts.push(price.kind === null ? dollars(price.total) : `${dollars(price.total)} ${PRICE_KIND_WORDS[price.kind]}`);
  }
  if (price.retail !== null) parts.push(`list ${dollars(price.retail)}`);
  if (price.savings !== null && price.savings > 0) parts.push(`saves ${dollars(price.savings)}`);
  return parts.join(' · ');
}

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

/** Dispense as written, in words (`null`: the prescription does not say). */
export function dawText(daw: boolean | null): string {
  if (daw === null) return 'Not stated';
  return daw ? 'Yes — no substitution' : 'No — substitution allowed';
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

/** What happened to a sent order, in words (the network's `OrderExceptionType`). */
export const EXCEPTION_WORDS: Record<ExceptionKind, string> = {
  ORDER_ERROR: 'order error',
  DEMOGRAPHIC_MISMATCH: "the patient's details do not match the pharmacy's",
  PHARMACY_UNREACHABLE: 'pharmacy unreachable',
  PHARMACY_CLOSED: 'pharmacy closed',
  EXTERNAL_TRANSFER: 'transferred to another pharmacy',
  PHARMACY_DOES_NOT_ACCEPT_INSURANCE: "pharmacy does not take the patient's insurance",
  PHARMACY_NEEDS_INSURANCE_INFO: 'pharmacy needs insurance details',
  SUPERVISING_PHYSICIAN_NEEDED: 'a supervising physician is needed',
  DOCTOR_NOT_LICENSED_IN_STATE: "prescriber not licensed in the pharmacy's state",
};

/** An order's exceptions, the latest first. */
export function latestFirst(exceptions: ExceptionView[]): ExceptionView[] {
  return [...exceptions].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}

/**
 * "Needs attention: pharmacy closed, rerouted to Harbor Drug Back Bay" — the
 * order's latest exception and where the order is now; `null` without one.
 */
export function attentionWords(order: OrderView): string | null {
  const latest = latestFirst(order.exceptions)[0];
  if (!latest) return null;
  const words = `Needs attention: ${EXCEPTION_WORDS[latest.kind]}`;
  if (!order.pharmacy) return words;
  return latest.kind === 'PHARMACY_CLOSED'
    ? `${words}, rerouted to ${order.pharmacy.name}`
    : `${words} (at ${order.pharmacy.name})`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const twoDigits = (n: number) => String(n).padStart(2, '0');

/*
 * Dates and times are written here, not by `Intl`/`toLocaleString`: one
 * format for everyone in a clinic, the month by name (03/04 is March or April
 * depending on the reader's locale — a known source of medication errors),
 * the clock in 24 hours. (Formatting through `Intl` also kept 0.3-1.2 MiB of
 * ICU's locale data in the window's processes, measured on the patient page.)
 */

/** `iso` read as an instant, or `null` when it is not one. */
function instant(iso: string): Date | null {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** A local time of day as "09:30". */
export function timeWords(at: Date): string {
  return `${twoDigits(at.getHours())}:${twoDigits(at.getMinutes())}`;
}

/** A local day as "25 Nov 2026". */
export function dayWords(at: Date): string {
  return `${at.getDate()} ${MONTHS[at.getMonth()]} ${at.getFullYear()}`;
}

/** A network timestamp as a person reads it here ("25 Nov 2026, 09:30", local time); as sent when unreadable. */
export function whenWords(iso: string): string {
  const at = instant(iso);
  return at ? `${dayWords(at)}, ${timeWords(at)}` : iso;
}

/**
 * A calendar date ("2026-11-25", or the date of a timestamp) as "25 Nov 2026":
 * a date alone is that day wherever the reader is, not midnight UTC moved
 * into their time zone; as sent when unreadable.
 */
export function dateWords(iso: string): string {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (day) {
    const month = MONTHS[Number(day[2]) - 1];
    return month ? `${Number(day[3])} ${month} ${day[1]}` : iso;
  }
  const at = instant(iso);
  return at ? dayWords(at) : iso;
}
