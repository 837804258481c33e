// What a screen shows after a failed command: inline messages per field (from
// Invalid.field or a ChangeNote's key), the network's refusal in place, or a
// general message — with "Try again" when the trouble was the link or the
// server, not the request. SignedOut hands over to sign-in and leaves the
// form's content alone (the content itself lives in `kept.svelte.ts`). While a
// command runs, `action` says so (see actions.svelte.ts).
import type { ActionId, ChangeNote, CommandError } from '../bindings/ipc';
import { toCommandError } from './backend';
import { Running, type Stoppable } from './actions.svelte';
import { app } from './app.svelte';

export interface Refusal {
  code: string;
  message: string;
  requiredPermission: string | null;
}

/** Maps a server field path ("name.first", "input.dateOfBirth") to a form key. */
export function fieldKey(field: string, aliases: Record<string, string> = {}): string {
  const trimmed = field.replace(/^input\./, '');
  if (aliases[trimmed]) return aliases[trimmed];
  const last = trimmed.split('.').pop() ?? trimmed;
  return aliases[last] ?? last;
}

/**
 * The form field a ChangeNote's key names, if any: `keys` maps a field to the
 * keys (or key suffixes) the network uses for it.
 */
export function noteField(key: string, keys: Record<string, string[]>): string | null {
  for (const [field, names] of Object.entries(keys)) {
    if (names.some((n) => key === n || key.endsWith(`.${n}`))) return field;
  }
  return null;
}

/** Problems by field: the first reason for each field a note names. */
export function fieldProblems(notes: ChangeNote[], keys: Record<string, string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const note of notes) {
    const field = noteField(note.key, keys);
    if (field && !out[field]) out[field] = note.reason ?? note.label;
  }
  return out;
}

/** A failed command, settled: `null` when it was SignedOut (sign-in now shows). */
export function settle(raw: unknown): CommandError | null {
  const e = toCommandError(raw);
  if (e.kind === 'signedOut') {
    app.requireSignIn(e.message);
    return null;
  }
  return e;
}

export function refusalOf(e: CommandError): Refusal | null {
  return e.kind === 'refused' ? { code: e.code, message: e.message, requiredPermission: e.requiredPermission } : null;
}

/** A CommandError in words (refusals are shown whole by RefusalBanner). */
export function describeError(e: CommandError): string {
  switch (e.kind) {
    case 'notFound':
      return `Not found: ${e.message}`;
    case 'network':
      return `The network could not be reached: ${e.message}`;
    case 'server':
      return `The server had trouble: ${e.message}`;
    case 'protocol':
      return `The network answered something Rx Desk did not expect: ${e.message}`;
    case 'invalid':
      return `${e.message} (${e.code})`;
    case 'refused':
      return `The network refused: ${e.message} (${e.code})`;
    case 'cancelled':
      return 'Stopped before it finished.';
    default:
      return e.message;
  }
}

/** Failures where sending the same again may work: the link, the server, a timeout. */
export function isTransient(e: CommandError): boolean {
  return e.kind === 'network' || e.kind === 'server';
}

export class FormStatus {
  fields = $state<Record<string, string>>({});
  /** The network's last `Invalid` answer whole, for views with no field to put it beside. */
  rejected = $state<{ code: string; message: string } | null>(null);
  refusal = $state<Refusal | null>(null);
  general = $state<string | null>(null);
  /** The last failure was the link's or the server's: "Try again" may work. */
  transient = $state(false);
  /** The command under way: pending, retries, Cancel. */
  readonly action = new Running();

  constructor(private aliases: Record<string, string> = {}) {}

  get busy(): boolean {
    return this.action.busy;
  }

  clear(): void {
    this.fields = {};
    this.general = null;
    this.rejected = null;
    this.refusal = null;
    this.transient = false;
  }

  dismissRefusal(): void {
    this.refusal = null;
  }

  /** Shows `e` where it belongs. Returns the error for callers that need more. */
  absorb(raw: unknown): CommandError {
    const e = toCommandError(raw);
    this.transient = isTransient(e);
    switch (e.kind) {
      case 'signedOut':
        app.requireSignIn(e.message);
        break;
      case 'refused':
        this.refusal = refusalOf(e);
        break;
      case 'invalid':
        this.rejected = { code: e.code, message: e.message };
        if (e.field) this.fields = { ...this.fields, [fieldKey(e.field, this.aliases)]: e.message };
        else this.general = describeError(e);
        break;
      default:
        this.general = describeError(e);
    }
    return e;
  }

  /**
   * Runs `call` (given the action's id), clearing old messages first;
   * `undefined` when it failed, was cancelled, or another run was under way
   * (a second click sends nothing).
   */
  async run<T>(call: (action: ActionId) => Promise<T>, stoppable: Stoppable = null): Promise<T | undefined> {
    if (this.busy) return undefined;
    this.clear();
    const outcome = await this.action.run(call, stoppable);
    switch (outcome.kind) {
      case 'done':
        return outcome.value;
      case 'failed':
        this.absorb(outcome.error);
        return undefined;
      default:
        return undefined;
    }
  }
}
