// Settings → Updates: the policy and build messages, a check only on click,
// the version and notes found, install only on click with progress, and
// errors shown as they came.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { EVENT_UPDATE } from '../bindings/ipc';
import Settings from '../components/Settings.svelte';
import { button, buttons, install, settle } from './fake';
import { render } from './harness';

const OFFERED = { kind: 'offered' as const, currentVersion: '0.1.0', policyNote: null };
const FOUND = {
  kind: 'found' as const,
  currentVersion: '0.1.0',
  version: '0.2.0',
  notes: 'Faster signing.\nA clearer pharmacy search.',
  date: '2026-01-01T00:00:00Z',
};

async function settings(): Promise<HTMLElement> {
  const root = render(Settings);
  await settle();
  return root;
}

describe('updates in Settings', () => {
  it('says when the organization turned updates off, and offers nothing', async () => {
    const fake = install();
    fake.on('update_status', () => ({ kind: 'offByPolicy', path: '/etc/rxdesk/policy.toml' }));
    const root = await settings();
    expect(root.textContent).toContain('Updates are turned off by your organization.');
    expect(buttons(root, 'Check for updates')).toHaveLength(0);
    expect(fake.callsOf('check_for_update')).toHaveLength(0);
  });

  it('shows a broken policy as an error: updates stay off', async () => {
    const fake = install();
    fake.on('update_status', () => ({ kind: 'policyBroken', problem: 'the IT policy file /etc/rxdesk/policy.toml is not valid' }));
    const root = await settings();
    expect(root.querySelector('[role="alert"]')?.textContent).toContain('policy.toml is not valid');
    expect(buttons(root, 'Check for updates')).toHaveLength(0);
  });

  it('says a build without a release key does not update itself', async () => {
    const fake = install();
    fake.on('update_status', () => ({ kind: 'notConfigured', policyNote: null }));
    const root = await settings();
    expect(root.textContent).toContain('This build does not update itself.');
    expect(buttons(root, 'Check for updates')).toHaveLength(0);
  });

  it('says a policy file no administrator owns was ignored, naming it, and still offers updates', async () => {
    const fake = install();
    const note =
      'A policy file at C:\\ProgramData\\Rx Desk\\policy.toml is not owned by an administrator and was ignored (it is owned by S-1-5-21-1-2-3-1001).';
    fake.on('update_status', () => ({ ...OFFERED, policyNote: note }));
    const root = await settings();
    expect(root.textContent).toContain(note);
    expect(buttons(root, 'Check for updates')).toHaveLength(1);
  });

  it('says so even on a build that does not update itself', async () => {
    const fake = install();
    fake.on('update_status', () => ({ kind: 'notConfigured', policyNote: 'A policy file at /x was ignored' }));
    const root = await settings();
    expect(root.textContent).toContain('A policy file at /x was ignored');
  });

  it('checks only when asked, shows the version and notes, installs only on click with progress', async () => {
    const fake = install();
    fake.on('update_status', () => OFFERED);
    fake.on('check_for_update', () => FOUND);
    let finish: () => void = () => {};
    fake.on('install_update', () => new Promise<null>((resolve) => (finish = () => resolve(null))));
    const root = await settings();
    expect(fake.callsOf('check_for_update')).toHaveLength(0);

    button(root, 'Check for updates').click();
    await settle();
    expect(root.textContent).toContain('Rx Desk 0.2.0 is available');
    expect(root.querySelector('.release-notes')?.textContent).toBe(FOUND.notes);
    expect(fake.callsOf('install_update')).toHaveLength(0);

    button(root, 'Install and restart').click();
    await settle();
    expect(fake.callsOf('install_update')).toHaveLength(1);
    expect(button(root, 'Install and restart').disabled).toBe(true);
    fake.emit(EVENT_UPDATE, { downloaded: 1_000_000, total: 4_000_000, verified: false });
    flushSync();
    expect(root.textContent).toContain('Downloading: 1.0 MB of 4.0 MB');
    const bar = root.querySelector('progress');
    expect(bar?.getAttribute('max')).toBe('4000000');
    fake.emit(EVENT_UPDATE, { downloaded: 4_000_000, total: 4_000_000, verified: true });
    flushSync();
    expect(root.textContent).toContain('Downloaded and verified. Installing');
    finish();
    await settle();
  });

  it('says when the version installed is the latest', async () => {
    const fake = install();
    fake.on('update_status', () => OFFERED);
    fake.on('check_for_update', () => ({ kind: 'upToDate', currentVersion: '0.1.0' }));
    const root = await settings();
    button(root, 'Check for updates').click();
    await settle();
    expect(root.textContent).toContain('Rx Desk 0.1.0 is the latest version.');
  });

  it('shows a refused update as the backend said, and installs nothing', async () => {
    const fake = install();
    fake.on('update_status', () => OFFERED);
    fake.on('check_for_update', () => FOUND);
    const message = "The update was refused: its signature does not match Rx Desk's release key (Signature verification failed). Nothing was installed; tell your IT team.";
    fake.on('install_update', () => {
      throw { kind: 'app', message };
    });
    const root = await settings();
    button(root, 'Check for updates').click();
    await settle();
    button(root, 'Install and restart').click();
    await settle();
    expect(root.querySelector('p.error[role="alert"]')?.textContent).toBe(message);
    expect(button(root, 'Install and restart').disabled).toBe(false);
  });
});
