// The terminal's colours for each theme: the sixteen ANSI colours chosen for the background
// they sit on, so that no colour an agent uses (white on the light theme, black on the dark one,
// bright yellow and cyan) vanishes. What an agent sets in 256 or true colour is kept as it is,
// and xterm.js lifts any text still under MIN_CONTRAST against its background.

import type { ITheme } from '@xterm/xterm';

/** WCAG's "AA" for body text. */
export const MIN_CONTRAST = 4.5;

/**
 * The search's active match, on both themes: the terminal draws it as its selection (xterm.js
 * selects the match), so while the search bar is open the selection takes these colours, focused
 * or not; the other matches are olive (SearchBar).
 */
export const ACTIVE_MATCH = '#f59e0b';
export const ACTIVE_MATCH_TEXT = '#111111';

export const THEMES: Record<'dark' | 'light', ITheme> = {
  dark: {
    background: '#16181d',
    foreground: '#d8dce3',
    cursor: '#d8dce3',
    selectionBackground: '#3b4252',
    black: '#7d8594',
    red: '#f87171',
    green: '#4ade80',
    yellow: '#facc15',
    blue: '#60a5fa',
    magenta: '#c084fc',
    cyan: '#22d3ee',
    white: '#d1d5db',
    brightBlack: '#9ca3af',
    brightRed: '#fca5a5',
    brightGreen: '#86efac',
    brightYellow: '#fde047',
    brightBlue: '#93c5fd',
    brightMagenta: '#d8b4fe',
    brightCyan: '#67e8f9',
    brightWhite: '#f9fafb',
  },
  light: {
    background: '#fbfbfc',
    foreground: '#1f2328',
    cursor: '#1f2328',
    selectionBackground: '#c8d6f0',
    black: '#1f2328',
    red: '#b91c1c',
    green: '#15803d',
    yellow: '#854d0e',
    blue: '#1d4ed8',
    magenta: '#7e22ce',
    cyan: '#0e7490',
    white: '#5b6270',
    brightBlack: '#4b5563',
    brightRed: '#991b1b',
    brightGreen: '#166534',
    brightYellow: '#713f12',
    brightBlue: '#1e40af',
    brightMagenta: '#6b21a8',
    brightCyan: '#155e75',
    brightWhite: '#374151',
  },
};

export const ANSI_NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white', 'brightBlack', 'brightRed', 'brightGreen', 'brightYellow', 'brightBlue', 'brightMagenta', 'brightCyan', 'brightWhite'] as const;

/** WCAG contrast ratio of two "#rrggbb" colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}
