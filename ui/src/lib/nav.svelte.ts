// Where the user is. Each navigation remounts the screen (keyed on `seq`) and
// moves focus to its heading. Routes hold ids and form keys; the only one that
// holds records is the review list, dropped whenever the session ends. A form's
// key names what it is for (the new draft of a patient, a draft by id), so
// going away and coming back finds what was typed — and a new record's kept
// idempotency key with it.
import type { ChangeNote, LinkTarget, PrescriptionView } from '../bindings/ipc';

export interface ReviewItem {
  prescription: PrescriptionView;
  patientName: string | null;
}

export type Route =
  | { name: 'work' }
  | { name: 'patients' }
  | { name: 'addPatient'; key: string }
  | { name: 'patient'; id: string; notes: ChangeNote[] }
  | { name: 'prescription'; patientId: string | null; id: string | null; key: string }
  | { name: 'review'; items: ReviewItem[] }
  /** `patientId`: a draft order's patient, when known, so the order and what
   *  can be added to it are fetched together. `changePharmacy`: a sent order
   *  opened to choose another pharmacy (from its "Needs attention" row). */
  | { name: 'order'; id: string; notes: ChangeNote[]; patientId?: string | null; changePharmacy?: boolean }
  | { name: 'newOrder'; patientId: string; key: string }
  | { name: 'openLink' }
  | { name: 'settings' };

export class Nav {
  route = $state<Route>({ name: 'work' });
  /** Bumped on every navigation: the screen remounts and its heading takes focus. */
  seq = $state(0);
  /** A link that arrived while nobody was signed in. */
  pending: LinkTarget | null = null;

  go(route: Route): void {
    this.route = route;
    this.seq += 1;
  }

  work = () => this.go({ name: 'work' });
  patients = () => this.go({ name: 'patients' });
  openLinkScreen = () => this.go({ name: 'openLink' });
  settings = () => this.go({ name: 'settings' });
  addPatient = () => this.go({ name: 'addPatient', key: 'patient-new' });
  patient = (id: string, notes: ChangeNote[] = []) => this.go({ name: 'patient', id, notes });
  newPrescription = (patientId: string) =>
    this.go({ name: 'prescription', patientId, id: null, key: `rx-new-${patientId}` });
  prescription = (id: string, patientId: string | null = null) =>
    this.go({ name: 'prescription', patientId, id, key: `rx-${id}` });
  review = (items: ReviewItem[]) => this.go({ name: 'review', items });
  order = (id: string, notes: ChangeNote[] = [], patientId: string | null = null) =>
    this.go({ name: 'order', id, notes, patientId });
  changePharmacy = (id: string) => this.go({ name: 'order', id, notes: [], patientId: null, changePharmacy: true });
  newOrder = (patientId: string) => this.go({ name: 'newOrder', patientId, key: `order-new-${patientId}` });

  /** Navigates to the record a link or id names. */
  open(target: LinkTarget): void {
    switch (target.kind) {
      case 'patient':
        this.patient(target.id);
        break;
      case 'prescription':
        this.prescription(target.id);
        break;
      case 'order':
        this.order(target.id);
        break;
    }
  }

  /** The session ended: keep where the user was (ids and form keys), drop records. */
  forgetRecords(): void {
    const r = this.route;
    if (r.name === 'review') this.route = { name: 'work' };
    else if (r.name === 'patient' && r.notes.length > 0) this.route = { ...r, notes: [] };
    else if (r.name === 'order' && r.notes.length > 0) this.route = { ...r, notes: [] };
  }

  /** Someone else signed in, or the user signed out: back to the start. */
  reset(): void {
    this.route = { name: 'work' };
    this.seq += 1;
  }

  /** After sign-in: a link that came while signed out. */
  applyPending(): void {
    const target = this.pending;
    this.pending = null;
    if (target) this.open(target);
  }
}

export const nav = new Nav();
