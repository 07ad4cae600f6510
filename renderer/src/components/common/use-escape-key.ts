// Escape closes every dialog and every question the app asks in place (issue 28):
// one listener on the window while the dialog is open, so it works wherever the
// focus is inside it (or when a disabled button dropped the focus to the page).
import { useEffect, useRef } from 'react';

/** Calls `onEscape` when Escape is pressed while `isActive`; a field that handles Escape itself (stopPropagation) keeps it. */
export function useEscapeKey(onEscape: () => void, isActive = true): void {
  const latest = useRef(onEscape);
  useEffect(() => {
    latest.current = onEscape;
  }, [onEscape]);
  useEffect(() => {
    if (!isActive) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      event.preventDefault();
      latest.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [isActive]);
}
