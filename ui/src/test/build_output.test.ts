// The UI build's writer (vite.config.ts): ui/dist keeps a file whose bytes did
// not change, so cargo does not compile the app again for a rebuild.
import { mkdtempSync, readFileSync, existsSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeChanged } from '../../vite.config';

const bytes = (text: string) => new TextEncoder().encode(text);

function distWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rxdesk-dist-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
    // An old time, so a rewrite shows.
    utimesSync(join(dir, name), 1_000_000, 1_000_000);
  }
  return dir;
}

describe('writing the built UI', () => {
  it('leaves a file with the same bytes untouched', () => {
    const dir = distWith({ 'index.html': '<h1>Rx Desk</h1>' });

    writeChanged(dir, new Map([['index.html', bytes('<h1>Rx Desk</h1>')]]));

    expect(statSync(join(dir, 'index.html')).mtimeMs).toBe(1_000_000_000);
  });

  it('rewrites a file whose bytes changed', () => {
    const dir = distWith({ 'assets/index.js': 'old()' });

    writeChanged(dir, new Map([['assets/index.js', bytes('new()')]]));

    expect(readFileSync(join(dir, 'assets/index.js'), 'utf8')).toBe('new()');
  });

  it('writes a new file, making its directory', () => {
    const dir = distWith({});

    writeChanged(dir, new Map([['assets/Settings.js', bytes('settings()')]]));

    expect(readFileSync(join(dir, 'assets/Settings.js'), 'utf8')).toBe('settings()');
  });

  it('removes a file the build no longer makes', () => {
    const dir = distWith({ 'index.html': 'page', 'assets/stale.js': 'gone()' });

    writeChanged(dir, new Map([['index.html', bytes('page')]]));

    expect(existsSync(join(dir, 'assets/stale.js'))).toBe(false);
    expect(existsSync(join(dir, 'index.html'))).toBe(true);
  });
});
