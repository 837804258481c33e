// `use:focusOnMount`: moves keyboard focus to a control when it appears
// (a form that just opened), so keyboard users land there.
export function focusOnMount(node: HTMLElement): void {
  queueMicrotask(() => node.focus());
}

// `use:screenHeading`: a screen's heading takes focus when the screen opens,
// so screen readers announce where navigation led.
export function screenHeading(node: HTMLElement): void {
  node.setAttribute('tabindex', '-1');
  queueMicrotask(() => node.focus());
}
