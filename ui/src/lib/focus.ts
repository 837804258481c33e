// `use:focusOnMount`: moves keyboard focus to a control when it appears
// (a form that just opened, a confirmation), so keyboard users land there.
export function focusOnMount(node: HTMLElement): void {
  queueMicrotask(() => node.focus());
}
