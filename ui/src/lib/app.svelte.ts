// The app-wide state: status (environments, storage), the session as the UI
// may know it (never a token), and the sign-in flow driven by Rust events.
import type { AppStatus, SessionInfo, SignInEvent, SignInFailure } from '../bindings/ipc';
import { api, onSession, onSignIn, toCommandError } from './backend';

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

export class AppState {
  status = $state<AppStatus | null>(null);
  session = $state<SessionInfo | null>(null);
  signIn = $state<SignInState>({ stage: 'idle' });
  /** Sign-in asked for mid-task: the workspace stays mounted underneath. */
  resumeNotice = $state<string | null>(null);
  /** Keep the screens (and what was typed) while signing in again. */
  keepWorkspace = $state(false);
  loadError = $state<string | null>(null);
  private signingOut = false;

  get permissions(): string[] {
    return this.session?.permissions ?? [];
  }

  get showWorkspace(): boolean {
    return this.session !== null || this.keepWorkspace;
  }

  get signInVisible(): boolean {
    return this.session === null;
  }

  async start(): Promise<void> {
    await onSignIn((e) => this.applySignIn(e));
    await onSession((e) => {
      if (!e.session && this.session && !this.signingOut) {
        // Ended by the network, not by the user: keep every screen and what was typed.
        this.requireSignIn('it expired or was revoked');
      }
      this.session = e.session;
      if (this.status) this.status = { ...this.status, storage: e.storage };
    });
    try {
      this.status = await api.appStatus();
      this.session = this.status.session;
    } catch (e) {
      this.loadError = toCommandError(e).message;
    }
  }

  applySignIn(e: SignInEvent): void {
    switch (e.stage) {
      case 'waiting':
        this.signIn = { stage: 'waiting', url: e.url, browserOpened: e.browserOpened };
        break;
      case 'signedIn':
        this.session = e.session;
        this.signIn = { stage: 'idle' };
        break;
      case 'failed':
        this.signIn = { stage: 'failed', reason: e.reason, message: e.message };
        break;
    }
  }

  /** A command answered SignedOut: ask for sign-in, keep the forms. */
  requireSignIn(message: string): void {
    if (this.keepWorkspace && this.session === null && this.resumeNotice) return;
    this.keepWorkspace = true;
    this.session = null;
    this.signIn = { stage: 'idle' };
    this.resumeNotice = `Your session ended (${message}). Sign in again; what you typed is kept — submit it again afterwards.`;
  }

  async startSignIn(): Promise<void> {
    this.signIn = { stage: 'starting' };
    try {
      await api.signIn();
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
    try {
      await api.signOut();
    } finally {
      this.signingOut = false;
      this.session = null;
      this.keepWorkspace = false;
      this.resumeNotice = null;
    }
  }

  async selectEnvironment(id: string): Promise<void> {
    this.status = await api.selectEnvironment(id);
    this.session = this.status.session;
  }
}

export const app = new AppState();
