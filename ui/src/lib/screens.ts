// The screens that load after the first one, each once: the signed-in
// workspace and Settings. The start-up bundle holds the sign-in screen and the
// app's state only, so the first screen's scripts are few; these are fetched
// when sign-in starts (`prefetchScreens`: the browser takes seconds, the
// scripts milliseconds) or when first shown (a session restored at start).

/** `load`, started on the first call; every call answers the same promise. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => (loading ??= load());
}

export const loadWorkspace = once(() => import('../components/Workspace.svelte'));
export const loadSettings = once(() => import('../components/Settings.svelte'));

/** Fetches both in the background; a failure is shown where the screen is. */
export function prefetchScreens(): Promise<void> {
  return Promise.all([loadWorkspace(), loadSettings()]).then(
    () => {},
    () => {},
  );
}
