import '../../styles/theme.css';
import { h } from './dom.js';

/** Light or dark: the user's choice (kept in this browser), else the system's (`prefers-color-scheme`). */
export type Theme = 'light' | 'dark';
const KEY = 'nbserve-theme';
const systemDark = () => window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;

/** The choice when storage is disabled: it lasts for this page. */
let chosen: Theme | undefined;

function stored(): Theme | undefined {
  if (chosen) return chosen;
  try {
    const value = window.localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : undefined;
  } catch {
    return undefined; // storage disabled
  }
}

export function currentTheme(): Theme {
  return stored() ?? (systemDark() ? 'dark' : 'light');
}

const listeners = new Set<(theme: Theme) => void>();

/** Calls `listener` now and on every change of the theme (the terminal recolours itself). */
export function onTheme(listener: (theme: Theme) => void): void {
  listeners.add(listener);
  listener(currentTheme());
}

function apply(): void {
  const theme = currentTheme();
  document.documentElement.dataset.theme = theme;
  for (const b of document.querySelectorAll<HTMLElement>('.theme-toggle')) label(b, theme);
  for (const l of listeners) l(theme);
}

function label(button: HTMLElement, theme: Theme): void {
  button.textContent = theme === 'dark' ? '☀' : '☾';
  button.title = theme === 'dark' ? 'Switch to the light theme' : 'Switch to the dark theme';
  button.setAttribute('aria-pressed', String(theme === 'dark'));
}

/** Switches to the other theme and keeps the choice. */
export function toggleTheme(): Theme {
  const next: Theme = currentTheme() === 'dark' ? 'light' : 'dark';
  try {
    window.localStorage.setItem(KEY, next);
  } catch {
    chosen = next; // storage disabled
  }
  apply();
  return next;
}

/** The header's theme switch. */
export function themeToggle(): HTMLButtonElement {
  const button = h('button', {
    type: 'button',
    className: 'theme-toggle',
    'aria-label': 'Dark theme',
    onclick: () => toggleTheme(),
  });
  label(button, currentTheme());
  return button;
}

// Applied as soon as a page's script runs; follows the system while the user has not chosen.
if (typeof window !== 'undefined') {
  apply();
  window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener('change', apply);
  window.addEventListener('storage', (e) => {
    if (e.key === KEY) apply();
  });
}
