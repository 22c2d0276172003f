// The new-game dialog (its time presets, the last choices remembered), the resignation asked
// to be confirmed, records opened (a file or a paste) and saved (a download), and the SFEN
// tools (the cursor's position out, a start position in).
import { $, el } from './dom.js';
import { t } from './labels.js';
import { page } from './state.js';
import { recallJson, rememberJson } from './prefs.js';
import { request, loadRecord, saveRecord } from './session.js';

// The time presets' fields: a time a move (s), or a clock (main min, byoyomi s, increment s).
// Minishogi games are short: seconds a move, a few minutes a game.
const PRESETS = {
  '1s': { timing: 'movetime', movetime: 1 },
  '5s': { timing: 'movetime', movetime: 5 },
  '3p2': { timing: 'clock', main: 3, byoyomi: 0, inc: 2 },
  '5b10': { timing: 'clock', main: 5, byoyomi: 10, inc: 0 },
  '10b30': { timing: 'clock', main: 10, byoyomi: 30, inc: 0 },
  '5sd': { timing: 'clock', main: 5, byoyomi: 0, inc: 0 },
};

// The dialog's fields, by name: what is remembered and what a preset fills.
const FIELDS = { level: 'ng-level', elo: 'ng-elo', main: 'ng-main', byoyomi: 'ng-byoyomi', inc: 'ng-inc', movetime: 'ng-movetime' };

function choices() {
  const form = $('new-form').elements;
  const out = { side: form.side.value, strength: form.strength.value, timing: form.timing.value, engine: $('ng-engine').value };
  for (const [name, id] of Object.entries(FIELDS)) out[name] = $(id).value;
  return out;
}

// Sets the fields `values` names (others stay); a radio only to one of its values.
function applyChoices(values) {
  const form = $('new-form').elements;
  for (const radio of ['side', 'strength', 'timing']) {
    const value = values[radio];
    if (typeof value === 'string' && [...form[radio]].some((r) => r.value === value)) form[radio].value = value;
  }
  for (const [name, id] of Object.entries(FIELDS)) {
    const value = values[name];
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') $(id).value = String(value);
  }
}

// The preset the timing fields now hold, marked pressed (none when edited away from them).
function markPreset() {
  const now = choices();
  for (const button of document.querySelectorAll('[data-preset]')) {
    const preset = PRESETS[button.dataset.preset];
    const same = Object.entries(preset).every(([k, v]) => (k === 'timing' ? now.timing === v : Number(now[k]) === v));
    button.setAttribute('aria-pressed', String(same));
  }
}

// The new-game dialog, with `sfen` as its start position when given (the SFEN tools', the
// position editor's).
export function openNewGame(sfen) {
  const s = page.state;
  if (!s) return;
  const engines = $('ng-engine');
  engines.textContent = '';
  for (const name of s.engines) engines.append(el('option', { value: name, text: name }));
  // The last game's choices; on a first visit the dialog's own: a gentle level, 1 s a move.
  const last = recallJson('new-game') || {};
  applyChoices(last);
  // A first visit: the level the session started with (the core's newcomer level).
  if (last.level === undefined && typeof s.level === 'number') $('ng-level').value = s.level;
  engines.value = s.engines.includes(last.engine) ? last.engine : (s.engine || s.engines[0]);
  if (s.elo_range) {
    const [low, high] = s.elo_range;
    $('ng-elo').min = low;
    $('ng-elo').max = high;
    if (s.elo) $('ng-elo').value = s.elo;
    else {
      const v = Number($('ng-elo').value);
      if (v < low || v > high) $('ng-elo').value = Math.round((low + high) / 2);
    }
  }
  if (sfen !== undefined) $('ng-sfen').value = sfen;
  markPreset();
  $('new-dialog').showModal();
}

// Resign only once the dialog confirms: a stray click on the toolbar must not end a game.
function confirmResign() {
  const dialog = $('resign-dialog');
  const done = (yes) => {
    dialog.removeEventListener('click', onClick);
    if (dialog.open) dialog.close();
    if (yes) request('resign', {});
  };
  const onClick = (ev) => {
    const button = ev.target.closest('[data-resign]');
    if (button) done(button.dataset.resign === 'yes');
    else if (ev.target === dialog) done(false);  // a click on the backdrop
  };
  dialog.addEventListener('click', onClick);
  dialog.addEventListener('close', () => dialog.removeEventListener('click', onClick), { once: true });
  dialog.showModal();
}

// The dialog's choices as a NewGame request (docs/gui.md).
function newGameRequest() {
  const form = $('new-form');
  const side = form.elements.side.value;
  const strength = form.elements.strength.value;
  const timing = form.elements.timing.value;
  const sfen = $('ng-sfen').value.trim();
  const players = {
    sente: { sente: 'human', gote: 'engine' }, gote: { sente: 'engine', gote: 'human' },
    both: { sente: 'human', gote: 'human' }, none: { sente: 'engine', gote: 'engine' },
  }[side];
  const num = (id) => Number($(id).value) || 0;
  return {
    sfen: sfen || null,
    sente: players.sente,
    gote: players.gote,
    engine: $('ng-engine').value || (page.state && page.state.engine),
    level: strength === 'level' ? Math.max(0, Math.min(20, Math.round(num('ng-level')))) : null,
    elo: strength === 'elo' ? Math.round(num('ng-elo')) : null,
    clock: timing === 'clock' ? {
      main_ms: Math.round(num('ng-main') * 60000),
      byoyomi_ms: Math.round(num('ng-byoyomi') * 1000),
      increment_ms: Math.round(num('ng-inc') * 1000),
    } : null,
    movetime_ms: timing === 'movetime' ? Math.max(10, Math.round(num('ng-movetime') * 1000)) : 1000,
  };
}

function formatForFile(name) {
  const lower = name.toLowerCase();
  if (lower.endsWith('.kif')) return 'kif';
  if (lower.endsWith('.kifu')) return 'kifu';
  if (lower.endsWith('.csa')) return 'csa';
  return 'auto';
}

async function openFile(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  await loadRecord(bytes, formatForFile(file.name));
}

// The line as a record file, downloaded through a Blob (the same in both homes: the static
// site has no server to link to).
async function save(format) {
  const record = await saveRecord(format);
  if (!record) return;
  const url = URL.createObjectURL(new Blob([record.bytes], { type: record.type }));
  const link = el('a', { href: url, download: record.filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by the next task; then it can go.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  window.minishogiLastDownload = { filename: record.filename, type: record.type, bytes: record.bytes };  // for tests
}

async function copySfen() {
  const text = $('sfen-out').value;
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    $('sfen-out').select();
    document.execCommand('copy');
  }
  const button = $('btn-copy');
  button.textContent = t('copied');
  setTimeout(() => { button.textContent = t('copy'); }, 1200);
}

export function renderTools() {
  const out = $('sfen-out');
  if (document.activeElement !== out) out.value = page.state.sfen;
}

export function setupDialogs() {
  $('btn-new').addEventListener('click', () => openNewGame());
  $('ng-cancel').addEventListener('click', () => $('new-dialog').close());
  for (const button of document.querySelectorAll('[data-preset]')) {
    button.addEventListener('click', () => {
      applyChoices(PRESETS[button.dataset.preset]);
      markPreset();
    });
  }
  $('new-form').addEventListener('input', markPreset);
  $('new-form').addEventListener('change', markPreset);
  $('btn-resign').addEventListener('click', confirmResign);
  $('new-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const newGame = newGameRequest();
    rememberJson('new-game', choices());
    $('new-dialog').close();
    request('new', newGame);
  });
  $('file-input').addEventListener('change', async (ev) => {
    const file = ev.target.files && ev.target.files[0];
    if (file) await openFile(file);
    ev.target.value = '';
  });
  $('btn-paste').addEventListener('click', async () => {
    const text = $('paste-text').value;
    if (!text.trim()) return;
    const loaded = await loadRecord(new TextEncoder().encode(text), 'auto');
    if (loaded) $('paste-text').value = '';
  });
  for (const button of document.querySelectorAll('[data-save]')) {
    button.addEventListener('click', () => save(button.dataset.save));
  }
  $('btn-copy').addEventListener('click', copySfen);
  $('btn-sfen').addEventListener('click', () => openNewGame($('sfen-in').value.trim() || (page.state ? page.state.sfen : '')));
}
