// What the keyring's trouble means to the user and what they can do about it.
// Rx Desk keeps a session only in the OS keyring: when it cannot, the user may
// sign in for this run only (the session stays in memory until Rx Desk closes).
import type { KeyringProblem, SessionStorage } from '../bindings/ipc';

export const KEYRING_WHAT: Record<KeyringProblem, string> = {
  notRunning: 'No keyring service is running on this computer, so Rx Desk cannot keep your session between runs.',
  locked: 'Your keyring is locked and was not unlocked (its unlock prompt was dismissed), so Rx Desk cannot keep your session in it.',
  refused: 'Your keyring refused to keep your session.',
};

export const KEYRING_TODO: Record<KeyringProblem, string> = {
  notRunning:
    'Start your desktop’s keyring (GNOME Keyring or KWallet: a desktop session that has one) and restart Rx Desk.',
  locked: 'Unlock the keyring (answer its prompt, or open Passwords and Keys) and restart Rx Desk.',
  refused: 'Check the keyring (Passwords and Keys, or ask your IT) and restart Rx Desk.',
};

/** The notice for a keyring that cannot keep the session; `null` when it can. */
export function keyringNotice(storage: SessionStorage | undefined): string | null {
  if (!storage || storage.kind !== 'memoryOnly') return null;
  const what = KEYRING_WHAT[storage.problem];
  if (storage.thisRunOnly) {
    return `${what} You are signed in for this run only: your session is in memory and ends when Rx Desk closes; it is stored nowhere else.`;
  }
  return `${what} Rx Desk stores your session nowhere else. ${KEYRING_TODO[storage.problem]} Or sign in for this run only: you sign in again each time Rx Desk starts.`;
}
