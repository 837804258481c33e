// An index file the app cannot use (written by a newer version installed back
// over, or unreadable): the lists are kept in memory for the run, and Work
// says so in the words the app gives.
import { describe, expect, it } from 'vitest';
import { MO_SESSION, install, status } from './fake';
import { go, startApp } from './harness';

const NEWER =
  'the list of records on this computer was saved by a newer version of Rx Desk (format 4; this version reads up to 3); it was left as it is.';

describe('the lists of records on this computer', () => {
  it('Work tells why they are kept only while the app is open', async () => {
    const fake = install();
    fake.on('app_status', () => ({ ...status(MO_SESSION), indexProblem: NEWER }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'work' });

    const alert = [...root.querySelectorAll('[role="alert"]')].find((e) => e.textContent?.includes('newer version of Rx Desk'));
    expect(alert?.textContent).toBe(NEWER);
  });

  it('Work says nothing about them when the file is in use', async () => {
    const root = await startApp(install(), MO_SESSION);
    await go({ name: 'work' });

    expect(root.textContent).not.toContain('newer version of Rx Desk');
    expect(root.textContent).toContain('Recent patients');
  });
});
