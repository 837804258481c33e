import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { EVENT_SESSION, EVENT_SIGN_IN } from '../bindings/ipc';
import { app } from '../lib/app.svelte';
import { missingPermissionNote } from '../lib/permissions';
import { ADA_SESSION, BEN_SESSION, MO_SESSION, button, byLabel, install, patient, settle, status, type } from './fake';
import { go, startApp } from './harness';

const expired = { session: null, storage: { kind: 'keyring' } };

describe('who is signed in', () => {
  it('clears the patient page when the user signs out', async () => {
    const fake = install();
    fake
      .on('get_patient', () => patient({ allergies: [{ id: 'al_1', name: 'Penicillin', code: null }] }))
      .on('patient_work', () => ({ prescriptions: [], orders: [] }))
      .on('sign_out', () => {
        fake.emit(EVENT_SESSION, expired);
        return { revocation: { kind: 'revoked' }, keyringProblem: null };
      });
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'patient', id: 'pat_1', notes: [] });
    expect(root.textContent).toContain('Jane Doe');

    button(root, 'Sign out').click();
    await settle();
    expect(root.textContent).toContain('Sign in to Rx Desk');
    expect(root.textContent).not.toContain('Jane Doe');
    expect(root.textContent).not.toContain('Penicillin');

    // Signing in again starts on Work, not on the patient.
    app.applySignIn({ stage: 'signedIn', session: MO_SESSION });
    await settle();
    expect(root.querySelector('h2')?.textContent).toBe('Work');
    expect(root.textContent).not.toContain('Jane Doe');
  });

  it('says so when signing out could not revoke the session at the network', async () => {
    const fake = install();
    fake.on('sign_out', () => {
      fake.emit(EVENT_SESSION, expired);
      return { revocation: { kind: 'failed', message: 'network trouble: connection refused' }, keyringProblem: null };
    });
    const root = await startApp(fake, MO_SESSION);

    button(root, 'Sign out').click();
    await settle();

    expect(root.textContent).toContain('Sign in to Rx Desk');
    expect(root.querySelector('[role="status"].notice')?.textContent).toContain(
      'the network could not be told to end the session (network trouble: connection refused)',
    );
  });

  it('locks after the idle time without input, hiding the patient and keeping the form', async () => {
    const fake = install();
    fake
      .on('get_patient', () => patient())
      .on('patient_work', () => ({ prescriptions: [], orders: [] }))
      .on('lock_session', () => ({ revocation: { kind: 'revoked' }, keyringProblem: null }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'patient', id: 'pat_1', notes: [] });

    await app.checkIdle(Date.now() + 899_000);
    await settle();
    expect(fake.callsOf('lock_session')).toHaveLength(0);

    await app.checkIdle(Date.now() + 901_000);
    await settle();
    expect(fake.callsOf('lock_session')).toHaveLength(1);
    expect(root.textContent).toContain('Rx Desk locked after 15 minutes without input');
    expect(root.textContent).not.toContain('Jane Doe');
  });

  it('says nothing more than signed out when the session was revoked', async () => {
    const fake = install();
    fake.on('sign_out', () => {
      fake.emit(EVENT_SESSION, expired);
      return { revocation: { kind: 'revoked' }, keyringProblem: null };
    });
    const root = await startApp(fake, MO_SESSION);

    button(root, 'Sign out').click();
    await settle();

    expect(root.querySelector('.notice')).toBeNull();
  });

  it('keeps a half-filled draft form when the same user signs in again after the session expired', async () => {
    const fake = install();
    let answer: 'signedOut' | 'ok' = 'signedOut';
    fake
      .on('get_patient', () => patient())
      .on('sign_in', () => null)
      .on('save_draft', () => {
        if (answer === 'signedOut') {
          // As the app does: the session event comes first, then the command's answer.
          fake.emit(EVENT_SESSION, expired);
          throw { kind: 'signedOut', message: 'the token expired' };
        }
        return { kind: 'notSaved', problems: [] };
      });
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    type(byLabel(root, 'Instructions'), 'One tablet at night');
    type(byLabel(root, 'Quantity'), '30');
    flushSync();
    button(root, 'Save draft').click();
    await settle();

    // Sign-in shows, and nothing of the patient behind it.
    const dialog = root.querySelector('[role="dialog"]');
    expect(dialog?.textContent).toContain('what you typed is kept');
    expect(root.querySelector('main')).toBeNull();
    expect(root.textContent).not.toContain('Jane Doe');

    button(root, 'Sign in with your browser').click();
    await settle();
    fake.emit(EVENT_SIGN_IN, { stage: 'signedIn', session: MO_SESSION });
    await settle();
    expect(byLabel(root, 'Instructions').value).toBe('One tablet at night');
    expect(byLabel(root, 'Quantity').value).toBe('30');

    answer = 'ok';
    button(root, 'Save draft').click();
    await settle();
    const calls = fake.callsOf('save_draft');
    expect(calls).toHaveLength(2);
    // The same form under the same key; each run has its own action id.
    expect({ ...calls[1]?.args, action: null }).toEqual({ ...calls[0]?.args, action: null });
  });

  it('drops the forms of the previous user when someone else signs in', async () => {
    const fake = install();
    fake.on('get_patient', () => patient());
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    type(byLabel(root, 'Instructions'), 'One tablet at night');
    flushSync();
    fake.emit(EVENT_SESSION, expired);
    await settle();
    fake.emit(EVENT_SIGN_IN, { stage: 'signedIn', session: BEN_SESSION });
    await settle();

    expect(root.querySelector('h2')?.textContent).toBe('Work');
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    expect(byLabel(root, 'Instructions').value).toBe('');
  });

  it('kept forms follow the subject, not the email', async () => {
    const fake = install();
    fake.on('get_patient', () => patient());
    const noEmail = { ...ADA_SESSION, userEmail: '' };
    const root = await startApp(fake, noEmail);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    type(byLabel(root, 'Instructions'), 'One tablet at night');
    flushSync();

    // Someone else with an empty email too: not the same person.
    fake.emit(EVENT_SESSION, expired);
    await settle();
    fake.emit(EVENT_SIGN_IN, { stage: 'signedIn', session: { ...noEmail, subject: 'usr_cy', userName: 'Cy Hale' } });
    await settle();
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    expect(byLabel(root, 'Instructions').value).toBe('');

    // The same subject under a changed email is the same person.
    type(byLabel(root, 'Instructions'), 'Two tablets');
    flushSync();
    fake.emit(EVENT_SESSION, expired);
    await settle();
    fake.emit(EVENT_SIGN_IN, {
      stage: 'signedIn',
      session: { ...noEmail, subject: 'usr_cy', userName: 'Cy Hale', userEmail: 'cy@maple.example' },
    });
    await settle();
    expect(byLabel(root, 'Instructions').value).toBe('Two tablets');
  });

  it('drops kept forms when the network names no subject', async () => {
    const fake = install();
    fake.on('get_patient', () => patient());
    const nameless = { ...ADA_SESSION, subject: null };
    const root = await startApp(fake, nameless);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    type(byLabel(root, 'Instructions'), 'One tablet at night');
    flushSync();

    fake.emit(EVENT_SESSION, expired);
    await settle();
    fake.emit(EVENT_SIGN_IN, { stage: 'signedIn', session: nameless });
    await settle();

    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    expect(byLabel(root, 'Instructions').value).toBe('');
  });

  it('says so when the environment in use was removed, and keeps no form', async () => {
    const fake = install();
    fake.on('get_patient', () => patient());
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    type(byLabel(root, 'Instructions'), 'One tablet at night');
    flushSync();

    fake.emit(EVENT_SESSION, { ...expired, ended: { kind: 'environmentRemoved' } });
    await settle();

    expect(root.textContent).toContain('the environment you were using was removed');
    expect(root.textContent).not.toContain('Jane Doe');
    fake.emit(EVENT_SIGN_IN, { stage: 'signedIn', session: ADA_SESSION });
    await settle();
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    expect(byLabel(root, 'Instructions').value).toBe('');
  });

  it('says so when the environment in use was saved with new addresses, and keeps no form', async () => {
    const fake = install();
    fake.on('get_patient', () => patient());
    const root = await startApp(fake, ADA_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    type(byLabel(root, 'Instructions'), 'One tablet at night');
    flushSync();

    fake.emit(EVENT_SESSION, { ...expired, ended: { kind: 'environmentEdited' } });
    await settle();

    expect(root.textContent).toContain('saved with new addresses');
    expect(root.textContent).not.toContain('Jane Doe');
  });

  it('says why a start asked for sign-in when the app was idle past the lock', async () => {
    const fake = install();
    fake.on('app_status', () => ({ ...status(null), ended: { kind: 'locked', idleMinutes: 15 } }));

    const root = await startApp(fake, null);

    expect(root.textContent).toContain('Rx Desk locked after 15 minutes without input');
  });

  it('asks for sign-in in words when the saved sign-in could not be read (another version saved it)', async () => {
    const fake = install();
    fake.on('app_status', () => ({ ...status(null), ended: { kind: 'unreadable' } }));

    const root = await startApp(fake, null);

    expect(root.textContent).toContain('Sign in again: your saved sign-in could not be read');
    expect(root.textContent).toContain('Sign in with your browser');
  });

  it('reports input to the core at most every 20 seconds, and only while signed in', async () => {
    const fake = install();
    fake.on('note_activity', () => null);
    await startApp(fake, MO_SESSION);
    const t = Date.now();

    app.noteInput(t + 1_000);
    app.noteInput(t + 5_000);
    app.noteInput(t + 22_000);

    expect(fake.callsOf('note_activity')).toHaveLength(2);
    app.setSession(null);
    app.noteInput(t + 60_000);
    expect(fake.callsOf('note_activity')).toHaveLength(2);
  });

  it('the Lock button ends the session at once and keeps the form', async () => {
    const fake = install();
    fake
      .on('get_patient', () => patient())
      .on('lock_session', () => ({ revocation: { kind: 'revoked' }, keyringProblem: null }));
    const root = await startApp(fake, MO_SESSION);
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    type(byLabel(root, 'Instructions'), 'One tablet at night');
    flushSync();

    button(root, 'Lock').click();
    await settle();

    expect(fake.callsOf('lock_session')).toHaveLength(1);
    expect(root.textContent).toContain('Rx Desk is locked');
    expect(root.textContent).not.toContain('Jane Doe');
    fake.emit(EVENT_SIGN_IN, { stage: 'signedIn', session: MO_SESSION });
    await settle();
    await go({ name: 'prescription', patientId: 'pat_1', id: null, key: 'rx-test' });
    expect(byLabel(root, 'Instructions').value).toBe('One tablet at night');
  });

  it('shows its own message for access denied, timeout and network failure', async () => {
    const fake = install();
    const root = await startApp(fake, null);

    const seen = new Set<string>();
    for (const reason of ['accessDenied', 'timeout', 'network']) {
      fake.emit(EVENT_SIGN_IN, { stage: 'failed', reason, message: 'details' });
      flushSync();
      seen.add(root.querySelector('[data-testid="signin-failure"] strong')?.textContent ?? '');
    }
    expect(seen.size).toBe(3);
  });
});

describe('a keyring that cannot keep the session', () => {
  const noKeyring = (problem: 'notRunning' | 'locked' | 'refused', thisRunOnly = false) => ({
    kind: 'memoryOnly' as const,
    problem,
    detail: 'the keyring’s own words',
    thisRunOnly,
  });

  it('says no keyring service is running, what to do, and offers sign-in for this run only', async () => {
    const fake = install();
    fake.on('app_status', () => ({ ...status(null), storage: noKeyring('notRunning') }));
    fake.on('sign_in', () => null);
    const root = await startApp(fake, null);

    const problem = root.querySelector('[data-testid="keyring-problem"]');
    expect(problem?.getAttribute('role')).toBe('alert');
    expect(problem?.textContent).toContain('No keyring service is running on this computer');
    expect(problem?.textContent).toContain('Start your desktop’s keyring');
    expect(problem?.textContent).toContain('stores your session nowhere else');
    expect(problem?.textContent).toContain('the keyring’s own words');
    expect(root.textContent).not.toContain('Sign in with your browser');

    button(root, 'Sign in for this run only').click();
    await settle();
    expect(fake.callsOf('sign_in').map((c) => c.args)).toEqual([{ thisRunOnly: true }]);
  });

  it('says a locked keyring was not unlocked and how to unlock it', async () => {
    const fake = install();
    fake.on('app_status', () => ({ ...status(null), storage: noKeyring('locked') }));
    const root = await startApp(fake, null);

    const text = root.querySelector('[data-testid="keyring-problem"]')?.textContent ?? '';
    expect(text).toContain('Your keyring is locked and was not unlocked');
    expect(text).toContain('Unlock the keyring');
  });

  it('says a keyring that refused the session refused it', async () => {
    const fake = install();
    fake.on('app_status', () => ({ ...status(null), storage: noKeyring('refused') }));
    const root = await startApp(fake, null);

    expect(root.querySelector('[data-testid="keyring-problem"]')?.textContent).toContain(
      'Your keyring refused to keep your session',
    );
  });

  it('tells a user signed in for this run only that the session ends when Rx Desk closes', async () => {
    const fake = install();
    fake.on('app_status', () => ({ ...status(ADA_SESSION), storage: noKeyring('locked', true) }));
    const root = await startApp(fake, ADA_SESSION);

    const notice = root.querySelector('[data-testid="keyring-notice"]')?.textContent ?? '';
    expect(notice).toContain('You are signed in for this run only');
    expect(notice).toContain('ends when Rx Desk closes');
  });

  it('signs in as before when the keyring works', async () => {
    const fake = install();
    fake.on('sign_in', () => null);
    const root = await startApp(fake, null);

    expect(root.querySelector('[data-testid="keyring-problem"]')).toBeNull();
    button(root, 'Sign in with your browser').click();
    await settle();
    expect(fake.callsOf('sign_in').map((c) => c.args)).toEqual([{ thisRunOnly: false }]);
  });
});

describe('the network check', () => {
  it('warns prominently when the network would not accept what Rx Desk sends', async () => {
    const fake = install();
    fake.on('check_network', () => ({
      kind: 'incompatible',
      failing: [{ operation: 'SignPrescription', problems: ['the field `signing` is not in this schema'] }],
    }));
    const root = await startApp(fake, ADA_SESSION);
    const banner = root.querySelector('[data-testid="network-incompatible"]');
    expect(banner?.getAttribute('role')).toBe('alert');
    expect(banner?.textContent).toContain('This network does not accept what Rx Desk sends');
    expect(banner?.textContent).toContain('SignPrescription');
    expect(banner?.textContent).toContain('the field `signing` is not in this schema');
  });
});

describe('permissions', () => {
  it('name the permission and who has it only when the token lacks it', () => {
    expect(missingPermissionNote('signPrescription', MO_SESSION.permissions)).toBe('Signing needs write:prescription — prescribers only');
    expect(missingPermissionNote('sendOrder', MO_SESSION.permissions)).toBeNull();
  });
});

describe('a workstation clock set wrong', () => {
  it('tells a user whose computer clock is an hour ahead of the network that the clock is wrong', async () => {
    const fake = install();
    const session = { ...ADA_SESSION, wrongClock: { minutes: 60, ahead: true } };
    const root = await startApp(fake, session);

    const notice = root.querySelector('[data-testid="clock-notice"]')?.textContent ?? '';
    expect(notice).toContain("This computer's clock is 60 minutes ahead of the network's");
    expect(notice).toContain('Set the clock to the correct time');
  });

  it('says nothing about the clock when the sign-in found it right', async () => {
    const fake = install();
    const root = await startApp(fake, ADA_SESSION);

    expect(root.querySelector('[data-testid="clock-notice"]')).toBeNull();
  });
});
