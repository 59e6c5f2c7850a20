/** Client-side navigation between the console and the explorer (no reloads). */
const listeners = new Set<() => void>();

addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

export function onNavigate(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Follows a link in-page (plain clicks only: a middle click or Ctrl+click opens a tab). */
export function navigate(event: MouseEvent | null, to: string): void {
  if (event) {
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
  }
  if (to === location.pathname + location.search) return;
  history.pushState(null, '', to);
  for (const listener of listeners) listener();
}
