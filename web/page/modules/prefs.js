// What the page remembers between visits, in localStorage: the language, the piece set, the
// sound, the new-game dialog's last choices. Storage may be unavailable (a private window, a
// browser's settings): then nothing is remembered and the defaults hold.

const PREFIX = 'minishogi-';

// The text remembered under `name`, or null.
export function recall(name) {
  try {
    return localStorage.getItem(PREFIX + name);
  } catch (_) {
    return null;
  }
}

export function remember(name, text) {
  try {
    localStorage.setItem(PREFIX + name, text);
  } catch (_) { /* storage unavailable: not remembered */ }
}

// An object remembered as JSON under `name`, or null (none, or not JSON).
export function recallJson(name) {
  const text = recall(name);
  if (text === null) return null;
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' ? value : null;
  } catch (_) {
    return null;
  }
}

export const rememberJson = (name, value) => remember(name, JSON.stringify(value));
