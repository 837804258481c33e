// One user action on a slow or failing link, as the screens show it: under way
// from the click on (in the same tick), "Still trying (attempt n)" when the
// core retries a call (retry events carry the action's id), stopped by Cancel
// where that is safe, and never sent twice while it runs. A create's key is
// made here and kept by the form (kept.svelte.ts) until the create succeeds.
import type { ActionId, CommandError, CreateKey, RetryEvent } from '../bindings/ipc';
import { api, onRetry, toCommandError } from './backend';

/** A fresh id for one run of a command (one click, one keystroke's search). */
export function newActionId(): ActionId {
  return crypto.randomUUID();
}

/** A fresh idempotency key for one user action that creates a record. */
export function newCreateKey(): CreateKey {
  return crypto.randomUUID();
}

const watchers = new Map<ActionId, (e: RetryEvent) => void>();
let watching: Promise<void> | null = null;

/** Routes the core's retry events to the actions waiting for them (once). */
export function watchRetries(): Promise<void> {
  watching ??= onRetry((e) => watchers.get(e.action)?.(e)).then(() => undefined);
  return watching;
}

/** Tests: listen again on a new transport. */
export function resetRetryWatch(): void {
  watching = null;
  watchers.clear();
}

/** Calls `handler` with each retry event of `action` until the returned stop. */
export function watch(action: ActionId, handler: (e: RetryEvent) => void): () => void {
  watchers.set(action, handler);
  return () => void watchers.delete(action);
}

/**
 * What Cancel means for an action, or `null` when it cannot be stopped once
 * sent (a change: it runs to its end, retries included):
 * - `read`: a read or search; stopping it changes nothing anywhere;
 * - `create`: a create under a kept key; it may have been saved already, and
 *   Try again (the same key) finds it instead of making a second one.
 */
export type Stoppable = 'read' | 'create' | null;

export type Outcome<T> =
  | { kind: 'done'; value: T }
  | { kind: 'failed'; error: CommandError }
  /** Cancelled by the user. */
  | { kind: 'stopped' }
  /** Another run of this action was under way: nothing was sent. */
  | { kind: 'busy' };

/** One action at a time, with its state for the screen. */
export class Running {
  busy = $state(false);
  /** The attempt under way when the core retries (2 for the first retry). */
  attempt = $state<number | null>(null);
  /** The same, per record, when the action handles several (a batch of signatures). */
  attempts = $state<Record<string, number>>({});
  /** Whether (and how) the action under way can be cancelled. */
  stoppable = $state<Stoppable>(null);
  /** What was stopped by Cancel, until the next run. */
  stopped = $state<Stoppable>(null);
  private current: ActionId | null = null;

  /**
   * Runs `call` as one action. A second call while one runs sends nothing
   * (`busy`): a double click is one action.
   */
  async run<T>(call: (action: ActionId) => Promise<T>, stoppable: Stoppable = null): Promise<Outcome<T>> {
    if (this.busy) return { kind: 'busy' };
    const action = newActionId();
    this.current = action;
    this.busy = true;
    this.attempt = null;
    this.attempts = {};
    this.stopped = null;
    this.stoppable = stoppable;
    const stop = watch(action, (e) => {
      if (this.current !== action) return;
      this.attempt = e.attempt;
      if (e.record !== null) this.attempts = { ...this.attempts, [e.record]: e.attempt };
    });
    try {
      const value = await call(action);
      return this.current === action ? { kind: 'done', value } : { kind: 'stopped' };
    } catch (e) {
      const error = toCommandError(e);
      return this.current === action && error.kind !== 'cancelled' ? { kind: 'failed', error } : { kind: 'stopped' };
    } finally {
      stop();
      if (this.current === action) this.settle();
    }
  }

  /** Stops the action under way, if it can be stopped; its answer is ignored. */
  cancel(): void {
    const action = this.current;
    if (!action || !this.stoppable) return;
    this.stopped = this.stoppable;
    this.settle();
    api.cancelAction(action).catch(() => {
      // It ended meanwhile: its answer is ignored all the same.
    });
  }

  /** Forgets the action under way without telling the core (the screen went away). */
  forget(): void {
    this.settle();
    this.stopped = null;
  }

  /** `record`'s answer came: it is no longer being tried again. */
  answered(record: string): void {
    if (!(record in this.attempts)) return;
    const { [record]: _, ...rest } = this.attempts;
    this.attempts = rest;
  }

  private settle(): void {
    this.current = null;
    this.busy = false;
    this.attempt = null;
    this.attempts = {};
    this.stoppable = null;
  }
}
