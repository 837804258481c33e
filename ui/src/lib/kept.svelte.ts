// Form content kept outside the components, so it survives the screens being
// unmounted while the user signs in again (nothing with patient data renders
// behind the sign-in screen). Cleared when someone else signs in, or on sign-out.
const forms: Record<string, object> = $state({});

/** The kept form under `key`, created by `init` the first time. Reactive. */
export function keepForm<T extends object>(key: string, init: () => T): T {
  if (!(key in forms)) forms[key] = init();
  return forms[key] as T;
}

export function forgetForm(key: string): void {
  delete forms[key];
}

/** Drops every kept form (another user, or signed out on purpose). */
export function forgetForms(): void {
  for (const key of Object.keys(forms)) delete forms[key];
}
