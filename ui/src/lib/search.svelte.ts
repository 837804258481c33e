// Search as you type. Each text is searched at once — no pause after the last
// key, which for a typical typist (about 250 ms between keys) would fire
// mid-word anyway and add its whole length to every answer. A search still out
// for an older text is cancelled when the text changes (its answer could no
// longer be shown) and the new text goes at once, so the answer to the last
// key is one round trip away, never waiting behind an older search (issue 48:
// on a clinic's link that wait was most of the difference from one round
// trip). At most one search is out; on HTTP/2 a cancelled one is a reset
// stream on the same connection. Only the answer to the text in the box is
// shown; an older one is dropped. An empty text clears, unless the search
// lists everything it knows for one (`emptyToo`).
import type { ActionId } from '../bindings/ipc';
import { newActionId, watch } from './actions.svelte';
import { api } from './backend';
import { FormStatus } from './forms.svelte';

type Answer<T> = { ok: true; found: T[] } | { ok: false; error: unknown };

export class LatestSearch<T> {
  results = $state<T[] | null>(null);
  /** The query the results answer. */
  answered = $state('');
  pending = $state(false);
  /** The attempt under way when the core tries the search again. */
  attempt = $state<number | null>(null);
  /** Cancelled by the user, until the text changes. */
  stopped = $state(false);
  status = new FormStatus();
  /** The text to answer ('' or null: none). */
  private wanted: string | null = null;
  private inFlight: { query: string; action: ActionId } | null = null;

  private emptyToo: boolean;

  constructor(
    private fetch: (query: string, action: ActionId) => Promise<T[]>,
    options: { emptyToo?: boolean } = {},
  ) {
    this.emptyToo = options.emptyToo ?? false;
  }

  /** The text changed: search it now, cancelling a search out for an older text. */
  input(text: string): void {
    const query = text.trim();
    this.wanted = query;
    this.stopped = false;
    if (query === '' && !this.emptyToo) {
      this.stopInFlight();
      this.results = null;
      this.pending = false;
      this.status.clear();
      return;
    }
    this.pending = true;
    if (this.inFlight) {
      if (this.inFlight.query === query) return;
      // Its answer could no longer be shown: not worth waiting for.
      this.stopInFlight();
    }
    void this.send(query);
  }

  private async send(query: string): Promise<void> {
    const action = newActionId();
    this.inFlight = { query, action };
    this.attempt = null;
    const stop = watch(action, (e) => {
      if (this.inFlight?.action === action) this.attempt = e.attempt;
    });
    let answer: Answer<T>;
    try {
      answer = { ok: true, found: await this.fetch(query, action) };
    } catch (error) {
      answer = { ok: false, error };
    }
    stop();
    // Stopped meanwhile (cleared, cancelled, or given up for a newer text).
    if (this.inFlight?.action !== action) return;
    this.inFlight = null;
    this.attempt = null;
    const wanted = this.wanted;
    if (wanted === query) {
      this.status.clear();
      if (answer.ok) {
        this.results = answer.found;
        this.answered = query;
      } else {
        this.status.absorb(answer.error);
      }
      this.pending = false;
    }
  }

  private stopInFlight(): void {
    const running = this.inFlight;
    this.inFlight = null;
    this.attempt = null;
    if (running) {
      api.cancelAction(running.action).catch(() => {
        // It answered meanwhile: that answer is dropped all the same.
      });
    }
  }

  /** The user stopped the search under way (the results shown stay). */
  cancel(): void {
    this.stopInFlight();
    this.pending = false;
    this.stopped = true;
  }

  /** Forget the results (a choice was made) and any search under way. */
  clear(): void {
    this.wanted = null;
    this.stopInFlight();
    this.results = null;
    this.pending = false;
    this.stopped = false;
  }
}
