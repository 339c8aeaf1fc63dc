// Light or dark: the settings' choice, or the system's when they leave it to the system.

import { useUi, type ThemeChoice } from '../state/ui';

const scheme = () => window.matchMedia?.('(prefers-color-scheme: dark)');

/** Whether the page and the terminals are dark. */
export const isDark = (theme: ThemeChoice) => (theme === 'system' ? (scheme()?.matches ?? false) : theme === 'dark');

/**
 * Keeps the page's `data-theme` (which styles.css reads) on the theme in effect, from before the
 * first render (the token form too) and as the settings or the system change it.
 */
export function followTheme(): void {
  const apply = () => {
    document.documentElement.dataset.theme = isDark(useUi.getState().theme) ? 'dark' : 'light';
  };
  apply();
  useUi.subscribe((state, before) => {
    if (state.theme !== before.theme) apply();
  });
  scheme()?.addEventListener('change', apply);
}
