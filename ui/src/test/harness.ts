// Mounting the app (or one component) against the fake transport.
import { afterEach } from 'vitest';
import { flushSync, mount, unmount, type Component } from 'svelte';
import App from '../App.svelte';
import { prefetchScreens } from '../lib/screens';
import type { SessionInfo } from '../bindings/ipc';
import { app } from '../lib/app.svelte';
import { nav, type Route } from '../lib/nav.svelte';
import { type FakeTransport, settle, status } from './fake';

let mounted: Record<string, unknown>[] = [];

afterEach(() => {
  for (const m of mounted) unmount(m);
  mounted = [];
  document.body.innerHTML = '';
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function render(component: Component<any>, props: Record<string, unknown> = {}): HTMLElement {
  const target = document.createElement('div');
  document.body.appendChild(target);
  mounted.push(mount(component, { target, props }));
  flushSync();
  return target;
}

/** The whole app, signed in as `session` (or not), on the fake transport. */
export async function startApp(fake: FakeTransport, session: SessionInfo | null): Promise<HTMLElement> {
  if (!fake.handlers.has('app_status')) fake.on('app_status', () => status(session));
  if (!fake.handlers.has('check_network')) fake.on('check_network', () => ({ kind: 'compatible' }));
  if (!fake.handlers.has('work_lists'))
    fake.on('work_lists', () => ({ recentPatients: [], drafts: [], openOrders: [], dropped: 0 }));
  const root = render(App);
  await app.start();
  await prefetchScreens();
  await settle();
  return root;
}

/** Navigates and lets the new screen load. */
export async function go(route: Route): Promise<void> {
  nav.go(route);
  flushSync();
  await settle();
}
