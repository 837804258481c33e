// Search as you type: debounced, and only the answer to the latest query is
// shown (an older answer arriving late is dropped). An empty query clears,
// unless the search lists everything it knows for one (`emptyToo`).
import { FormStatus } from './forms.svelte';

export class LatestSearch<T> {
  results = $state<T[] | null>(null);
  /** The query the results answer. */
  answered = $state('');
  pending = $state(false);
  status = new FormStatus();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;

  constructor(
    private fetch: (query: string) => Promise<T[]>,
    private delay = 250,
    private emptyToo = false,
  ) {}

  /** The text changed: search after a pause; an empty query clears (unless `emptyToo`). */
  input(text: string): void {
    clearTimeout(this.timer);
    const mine = ++this.generation;
    const query = text.trim();
    if (query === '' && !this.emptyToo) {
      this.results = null;
      this.pending = false;
      this.status.clear();
      return;
    }
    this.pending = true;
    this.timer = setTimeout(() => void this.search(query, mine), this.delay);
  }

  private async search(query: string, mine: number): Promise<void> {
    try {
      const found = await this.fetch(query);
      if (mine !== this.generation) return;
      this.status.clear();
      this.results = found;
      this.answered = query;
    } catch (e) {
      if (mine !== this.generation) return;
      this.status.clear();
      this.status.absorb(e);
    } finally {
      if (mine === this.generation) this.pending = false;
    }
  }

  /** Forget the results (a choice was made) and any search under way. */
  clear(): void {
    clearTimeout(this.timer);
    this.generation += 1;
    this.results = null;
    this.pending = false;
  }
}
