// What a form shows after a failed command: inline messages per field (from
// Invalid.field), the network's refusal in place, or a general message.
// SignedOut hands over to sign-in and leaves the form's content alone.
import type { CommandError } from '../bindings/ipc';
import { toCommandError } from './backend';
import { app } from './app.svelte';

export interface Refusal {
  code: string;
  message: string;
  requiredPermission: string | null;
}

/** A real calendar date written YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** Maps a server field path ("name.first", "input.treatmentId") to a form key. */
export function fieldKey(field: string, aliases: Record<string, string> = {}): string {
  const trimmed = field.replace(/^input\./, '');
  if (aliases[trimmed]) return aliases[trimmed];
  const last = trimmed.split('.').pop() ?? trimmed;
  return aliases[last] ?? last;
}

export class FormStatus {
  fields = $state<Record<string, string>>({});
  /** The network's last `Invalid` answer whole, for views with no field to put it beside. */
  rejected = $state<{ code: string; message: string } | null>(null);
  refusal = $state<Refusal | null>(null);
  general = $state<string | null>(null);
  busy = $state(false);

  constructor(private aliases: Record<string, string> = {}) {}

  clear(): void {
    this.fields = {};
    this.general = null;
    this.rejected = null;
  }

  dismissRefusal(): void {
    this.refusal = null;
  }

  /** Shows `e` where it belongs. Returns the error for callers that need more. */
  absorb(raw: unknown): CommandError {
    const e = toCommandError(raw);
    switch (e.kind) {
      case 'signedOut':
        app.requireSignIn(e.message);
        break;
      case 'refused':
        this.refusal = { code: e.code, message: e.message, requiredPermission: e.requiredPermission };
        break;
      case 'invalid':
        this.rejected = { code: e.code, message: e.message };
        if (e.field) this.fields = { ...this.fields, [fieldKey(e.field, this.aliases)]: e.message };
        else this.general = e.message;
        break;
      case 'notFound':
        this.general = `Not found: ${e.message}`;
        break;
      case 'network':
        this.general = `The network could not be reached: ${e.message}`;
        break;
      case 'server':
        this.general = `The server had trouble: ${e.message}`;
        break;
      default:
        this.general = e.message;
    }
    return e;
  }

  /** Runs `action`, clearing old messages first; `undefined` when it failed. */
  async run<T>(action: () => Promise<T>): Promise<T | undefined> {
    this.clear();
    this.busy = true;
    try {
      return await action();
    } catch (e) {
      this.absorb(e);
      return undefined;
    } finally {
      this.busy = false;
    }
  }
}
