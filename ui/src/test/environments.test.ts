// Settings → Add an environment: the issuer check (RFC 9207) is on for the
// vendor's networks and for a new environment, and the user's choice is what
// is saved.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import Settings from '../components/Settings.svelte';
import { app } from '../lib/app.svelte';
import { button, byLabel, install, settle, status, type } from './fake';
import { render } from './harness';

const ISSUER = 'Require the authorization server to name itself in every sign-in answer';

async function settings() {
  const fake = install();
  fake.on('update_status', () => ({ kind: 'notConfigured', policyNote: null }));
  fake.on('save_environment', () => status(null));
  app.status = status(null);
  const root = render(Settings);
  await settle();
  return { root, fake };
}

describe('adding an environment', () => {
  it('starts from a vendor network with the issuer required, and saves it so', async () => {
    const { root, fake } = await settings();
    button(root, 'Use Vendor sandbox').click();
    flushSync();
    type(byLabel(root, 'Application client ID'), 'app-client-id');
    button(root, 'Add environment').click();
    await settle();
    expect(fake.callsOf('save_environment')[0]?.args.input).toMatchObject({
      authUrl: 'https://auth.neutron.health',
      clientId: 'app-client-id',
      requireIssuer: true,
    });
  });

  it('saves the issuer check off only when the user turns it off', async () => {
    const { root, fake } = await settings();
    type(byLabel(root, 'Name'), 'Old server');
    type(byLabel(root, 'Authorization server URL'), 'https://auth.example');
    type(byLabel(root, 'API URL'), 'https://api.example');
    type(byLabel(root, 'Audience'), 'aud');
    type(byLabel(root, 'Application client ID'), 'desk');
    const check = byLabel(root, ISSUER);
    expect(check.checked).toBe(true);
    check.click();
    flushSync();
    button(root, 'Add environment').click();
    await settle();
    expect(fake.callsOf('save_environment')[0]?.args.input.requireIssuer).toBe(false);
  });
});
