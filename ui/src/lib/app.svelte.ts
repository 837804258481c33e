// The app-wide state: status (environments, storage), the session as the UI
// may know it (never a token), the sign-in flow driven by Rust events, the
// network check, input reported to the core for its idle lock, and the rule
// that no patient data crosses from one user to another: a new user or
// organization (or a sign-out) clears every kept form and the screen; the same
// user — the same stable subject (`sub`), never just an email — signing in
// again after an expiry or a lock finds their forms as they left them.
import type {
  AppStatus,
  LinkEvent,
  NetworkCheck,
  SessionEnd,
  SessionInfo,
  SignInEvent,
  SignInFailure,
  SignOutSummary,
} from '../bindings/ipc';
import { api, onOpenLink, onSession, onSignIn, toCommandError } from './backend';
import { resetRetryWatch, watchRetries } from './actions.svelte';
import { forgetForms } from './kept.svelte';
import { nav } from './nav.svelte';

export type SignInState =
  | { stage: 'idle' }
  | { stage: 'starting' }
  | { stage: 'waiting'; url: string; browserOpened: boolean }
  | { stage: 'failed'; reason: SignInFailure; message: string };

export const FAILURE_TEXT: Record<SignInFailure, string> = {
  accessDenied: 'Sign-in was cancelled or refused in the browser.',
  timeout: 'No answer came from the browser in time.',
  network: 'The sign-in server could not be reached. Check the network and the environment.',
  cancelled: 'Sign-in cancelled.',
  other: 'Sign-in did not complete.',
};

/** How often, at most, input is reported to the core (ms). */
export const REPORT_INPUT_EVERY = 20_000;

let anonymous = 0;

/**
 * Who, where: forms are kept only for the same user (the network's stable
 * subject, `sub`) of the same organization. Without a subject nobody can be
 * told apart: each sign-in is someone new, and kept forms are dropped.
 */
function identityOf(s: SessionInfo): string {
  if (!s.subject) {
    anonymous += 1;
    return `anonymous-${anonymous}`;
  }
  return JSON.stringify([s.environmentId, s.subject, s.organizationId]);
}

/** Why the session ended, in words, for the sign-in screen. */
export function endedNotice(ended: SessionEnd): string {
  switch (ended.kind) {
    case 'locked':
      return `Rx Desk locked after ${ended.idleMinutes} minutes without input. Sign in again to go on; what you typed is kept.`;
    case 'signedOut':
      return 'Signed out.';
    case 'expired':
      return 'Your session ended (it expired or was revoked). Sign in again; what you typed is kept — submit it again afterwards.';
    case 'environmentRemoved':
      return 'Signed out: the environment you were using was removed.';
    case 'environmentChanged':
      return 'Signed out: another environment was chosen.';
    case 'environmentEdited':
      return 'Signed out: the environment you were using was saved with new addresses, where this session is not valid. Sign in again there.';
    case 'unreadable':
      return 'Sign in again: your saved sign-in could not be read (it was saved by another version of Rx Desk, or damaged), so it was removed.';
  }
}

export class AppState {
  status = $state<AppStatus | null>(null);
  session = $state<SessionInfo | null>(null);
  signIn = $state<SignInState>({ stage: 'idle' });
  /** Sign-in asked for mid-task: the forms are kept for the same user. */
  resumeNotice = $state<string | null>(null);
  loadError = $state<string | null>(null);
  network = $state<NetworkCheck | null>(null);
  /** A link the OS handed over that could not be read. */
  linkMessage = $state<string | null>(null);
  private identity: string | null = null;
  private signingOut = false;
  private listening = false;
  /** When the user last touched a key, the pointer or the wheel (ms). */
  private lastInput = Date.now();
  /** When input was last reported to the core (ms). */
  private lastReported = 0;
  private idleTimer: ReturnType<typeof setInterval> | null = null;

  get permissions(): string[] {
    return this.session?.permissions ?? [];
  }

  /** Screens with patient data render only while someone is signed in. */
  get showWorkspace(): boolean {
    return this.session !== null;
  }

  get signInVisible(): boolean {
    return this.session === null;
  }

  /** Back to a blank app (tests). */
  reset(): void {
    this.status = null;
    this.session = null;
    this.signIn = { stage: 'idle' };
    this.resumeNotice = null;
    this.loadError = null;
    this.network = null;
    this.linkMessage = null;
    this.identity = null;
    this.lastReported = 0;
    this.signingOut = false;
    this.listening = false;
    resetRetryWatch();
    if (this.idleTimer !== null) clearInterval(this.idleTimer);
    this.idleTimer = null;
    this.clearPatientData();
  }

  /** Any input keeps the app unlocked; the core hears of it every few seconds at most. */
  noteInput(now = Date.now()): void {
    this.lastInput = now;
    if (this.session === null || now - this.lastReported < REPORT_INPUT_EVERY) return;
    this.lastReported = now;
    // Past the idle time the core ends the session and says so by event.
    api.noteActivity().catch(() => {});
  }

  /** Checks every few seconds whether the idle time has passed while signed in. */
  private watchIdle(): void {
    if (this.idleTimer !== null) return;
    for (const kind of ['keydown', 'pointerdown', 'pointermove', 'wheel', 'touchstart']) {
      window.addEventListener(kind, () => this.noteInput(), { passive: true, capture: true });
    }
    this.idleTimer = setInterval(() => void this.checkIdle(), 5_000);
  }

  async checkIdle(now = Date.now()): Promise<void> {
    const limit = this.status?.idleLockSeconds ?? 0;
    if (limit <= 0 || this.session === null) return;
    if (now - this.lastInput < limit * 1_000) return;
    await this.lockForIdle(limit);
  }

  /** Locks: the session ends (a fresh sign-in is needed), the forms stay for the same user. */
  async lockForIdle(limitSeconds: number): Promise<void> {
    const minutes = Math.max(1, Math.round(limitSeconds / 60));
    this.requireSignIn({ kind: 'locked', idleMinutes: minutes });
    try {
      const summary = await api.lockSession();
      const problem = signOutNotice(summary);
      if (problem) this.resumeNotice = `${this.resumeNotice} ${problem}`;
    } catch {
      // Locked here either way; the session is gone from the app.
    }
  }

  async start(): Promise<void> {
    // The listeners and the first status are asked for at once: each is an IPC
    // round trip, and one after the other they were most of the time between
    // the page's scripts and the first screen. The status is applied only once
    // every listener is in place, as before; what happened at start (a session
    // restored or ended, a link) comes in the status itself.
    const listening = this.listening ? Promise.resolve() : this.listen();
    this.listening = true;
    // Marks for the bench's cold-start note (`bench/src/startup.rs`).
    void listening.then(() => performance.mark('rxdesk:listening'), () => {});
    const answered = api.appStatus();
    void answered.then(() => performance.mark('rxdesk:answered'), () => {});
    try {
      const [status] = await Promise.all([answered, listening]);
      this.status = status;
      this.lastInput = Date.now();
      this.watchIdle();
      this.setSession(this.status.session);
      if (this.status.ended) this.resumeNotice = endedNotice(this.status.ended);
      // Started by a rxdesk:// link: open it (after sign-in when needed).
      if (this.status.link) this.applyLink(this.status.link);
    } catch (e) {
      this.loadError = toCommandError(e).message;
    }
  }

  /** Every event the app listens to, registered together. */
  private async listen(): Promise<void> {
    await Promise.all([
      onSignIn((e) => this.applySignIn(e)),
      onSession((e) => {
        if (!e.session && this.session && !this.signingOut) {
          // Ended by the network, a lock or Settings, not by the user's sign-out.
          const ended = e.ended ?? { kind: 'expired' };
          if (
            ended.kind === 'environmentRemoved' ||
            ended.kind === 'environmentChanged' ||
            ended.kind === 'environmentEdited'
          ) {
            this.setSession(null);
            this.clearPatientData();
            this.identity = null;
            this.resumeNotice = endedNotice(ended);
          } else {
            this.requireSignIn(ended);
          }
        }
        this.setSession(e.session);
        if (this.status) this.status = { ...this.status, storage: e.storage };
      }),
      onOpenLink((e) => this.applyLink(e)),
      watchRetries(),
    ]);
  }

  /** Every piece of state that holds patient data, gone. */
  clearPatientData(): void {
    forgetForms();
    nav.reset();
  }

  /** The one place the session changes. */
  setSession(next: SessionInfo | null): void {
    if (next) {
      const id = identityOf(next);
      const changed = this.identity !== id;
      if (changed && this.identity !== null) this.clearPatientData();
      this.identity = id;
      this.session = next;
      this.resumeNotice = null;
      if (changed || this.network === null) void this.checkNetwork();
      nav.applyPending();
    } else {
      if (this.session) nav.forgetRecords();
      this.session = null;
    }
  }

  async checkNetwork(): Promise<void> {
    this.network = null;
    try {
      this.network = await api.checkNetwork();
    } catch (e) {
      const err = toCommandError(e);
      if (err.kind !== 'signedOut') this.network = { kind: 'unchecked', message: err.message };
    }
  }

  applySignIn(e: SignInEvent): void {
    switch (e.stage) {
      case 'waiting':
        this.signIn = { stage: 'waiting', url: e.url, browserOpened: e.browserOpened };
        break;
      case 'signedIn':
        this.signIn = { stage: 'idle' };
        this.setSession(e.session);
        break;
      case 'failed':
        this.signIn = { stage: 'failed', reason: e.reason, message: e.message };
        break;
    }
  }

  applyLink(e: LinkEvent): void {
    if (e.kind === 'open') {
      this.linkMessage = null;
      if (this.session) nav.open(e.target);
      else nav.pending = e.target;
    } else {
      this.linkMessage = e.message;
      // Shown on the Open link screen (after sign-in, when nobody is signed in now).
      if (this.session) nav.openLinkScreen();
      else nav.route = { name: 'openLink' };
    }
  }

  /** The session ended without a sign-out (expired, locked): ask for sign-in, keep the forms. */
  requireSignIn(why: SessionEnd | string = { kind: 'expired' }): void {
    if (this.session === null && this.resumeNotice) return;
    this.setSession(null);
    this.signIn = { stage: 'idle' };
    this.resumeNotice =
      typeof why === 'string'
        ? `Your session ended (${why}). Sign in again; what you typed is kept — submit it again afterwards.`
        : endedNotice(why);
  }

  /** The user locks the screen on purpose (stepping away): as the idle lock. */
  async lockNow(): Promise<void> {
    this.requireSignIn({ kind: 'locked', idleMinutes: 0 });
    this.resumeNotice = 'Rx Desk is locked. Sign in again to go on; what you typed is kept.';
    try {
      const problem = signOutNotice(await api.lockSession());
      if (problem) this.resumeNotice = `${this.resumeNotice} ${problem}`;
    } catch {
      // Locked here either way.
    }
  }

  /** `thisRunOnly`: the user chose to sign in although the keyring cannot
   *  keep the session (kept in memory until Rx Desk closes). */
  async startSignIn(thisRunOnly = false): Promise<void> {
    this.signIn = { stage: 'starting' };
    try {
      await api.signIn(thisRunOnly);
    } catch (e) {
      const err = toCommandError(e);
      this.signIn = { stage: 'failed', reason: 'other', message: err.message };
    }
  }

  async cancelSignIn(): Promise<void> {
    await api.cancelSignIn().catch(() => {});
  }

  async signOut(): Promise<void> {
    this.signingOut = true;
    let notice: string | null = null;
    try {
      notice = signOutNotice(await api.signOut());
    } catch (e) {
      notice = `Signed out here, but: ${toCommandError(e).message}`;
    } finally {
      this.signingOut = false;
      this.setSession(null);
      this.clearPatientData();
      this.identity = null;
      this.resumeNotice = notice;
    }
  }

  async selectEnvironment(id: string): Promise<void> {
    const status = await api.selectEnvironment(id);
    this.status = status;
    this.setSession(status.session);
  }
}

export const app = new AppState();

/** What the user must know after signing out: only what did not work. */
export function signOutNotice(summary: SignOutSummary): string | null {
  const problems: string[] = [];
  if (summary.revocation.kind === 'failed') {
    problems.push(
      `the network could not be told to end the session (${summary.revocation.message}); it ends by itself when its tokens expire`,
    );
  }
  if (summary.keyringProblem) problems.push(summary.keyringProblem);
  return problems.length === 0 ? null : `Signed out, but ${problems.join('; and ')}.`;
}
