import { useLayoutEffect, useSyncExternalStore } from 'react';
import { useSessionStore } from '../../stores/session-store.ts';

const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)');

function subscribeToSystemTheme(onChange: () => void): () => void {
  const media = darkQuery();
  media.addEventListener('change', onChange);
  return () => media.removeEventListener('change', onChange);
}

/** 'light' or 'dark': the chosen theme, or the system's for "system". */
export function useResolvedTheme(): 'light' | 'dark' {
  const theme = useSessionStore((state) => state.settings?.theme ?? 'system');
  const isSystemDark = useSyncExternalStore(subscribeToSystemTheme, () => darkQuery().matches);
  return theme === 'system' ? (isSystemDark ? 'dark' : 'light') : theme;
}

/**
 * Puts the theme on <html data-theme>. A layout effect, so it lands before the
 * canvases (3D view, chart) read their colours in their own effects.
 */
export function useAppTheme(): void {
  const theme = useResolvedTheme();
  useLayoutEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
}
