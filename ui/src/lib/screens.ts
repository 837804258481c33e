// The screens that load after the first one, each once: the signed-in
// workspace and Settings. The start-up bundle holds the sign-in screen and the
// app's state only, so the first screen's scripts are few; these are fetched
// when sign-in starts (`prefetchScreens`: the browser takes seconds, the
// scripts milliseconds) or when first shown (a session restored at start).

const importWorkspace = () => import('../components/Workspace.svelte');
const importSettings = () => import('../components/Settings.svelte');

let workspace: ReturnType<typeof importWorkspace> | null = null;
let settings: ReturnType<typeof importSettings> | null = null;

export function loadWorkspace(): ReturnType<typeof importWorkspace> {
  return (workspace ??= importWorkspace());
}

export function loadSettings(): ReturnType<typeof importSettings> {
  return (settings ??= importSettings());
}

/** Fetches both in the background; a failure is shown where the screen is. */
export function prefetchScreens(): Promise<void> {
  return Promise.all([loadWorkspace(), loadSettings()]).then(
    () => {},
    () => {},
  );
}
