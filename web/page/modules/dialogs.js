// The new-game dialog, records opened (a file or a paste) and saved (a download), and the
// SFEN tools (the cursor's position out, a start position in).
import { $, el } from './dom.js';
import { t } from './labels.js';
import { page } from './state.js';
import { request, loadRecord, saveRecord } from './session.js';

function openNewGame(sfen) {
  const s = page.state;
  if (!s) return;
  const engines = $('ng-engine');
  engines.textContent = '';
  for (const name of s.engines) engines.append(el('option', { value: name, text: name }));
  engines.value = s.engine || s.engines[0];
  if (s.level !== null && s.level !== undefined) $('ng-level').value = s.level;
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
  $('new-dialog').showModal();
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
  $('new-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const newGame = newGameRequest();
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
