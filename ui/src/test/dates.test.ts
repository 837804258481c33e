// Dates and times as the app writes them: day, month by name, year; a 24-hour
// clock; in the reader's own time zone; what cannot be read shown as sent.
import { describe, expect, it } from 'vitest';
import { dateWords, dayWords, timeWords, whenWords } from '../lib/words';

describe('dates and times', () => {
  it('writes a timestamp as its local day with the month by name and a 24-hour time', () => {
    const afternoon = new Date(2026, 10, 5, 14, 7);

    expect(whenWords(afternoon.toISOString())).toBe('5 Nov 2026, 14:07');
  });

  it('writes a time of day with two digits for hours and minutes', () => {
    expect(timeWords(new Date(2026, 0, 1, 9, 5))).toBe('09:05');
  });

  it('writes a day with the month by name', () => {
    expect(dayWords(new Date(2026, 2, 4))).toBe('4 Mar 2026');
  });

  it('keeps a date alone on its own day whatever the time zone', () => {
    expect(dateWords('2026-11-25')).toBe('25 Nov 2026');
  });

  it('shows what it cannot read as it was sent', () => {
    expect(whenWords('yesterday')).toBe('yesterday');
    expect(dateWords('2026-13-01')).toBe('2026-13-01');
  });
});
