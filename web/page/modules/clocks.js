// The players' rows above and below the board: who plays each side, and their clocks, which
// tick here between the session's states.
import { $, el } from './dom.js';
import { t } from './labels.js';
import { page } from './state.js';

// [name, strength] of the player of `color`.
function playerName(color) {
  const s = page.state;
  if (s.players[color] === 'human') {
    const other = color === 'sente' ? 'gote' : 'sente';
    return [s.players[other] === 'engine' ? t('you') : t('human'), ''];
  }
  // The level and what the session says it is worth (its Elo), or the Elo chosen.
  const parts = [];
  if (s.elo) parts.push(`Elo ${s.elo}`);
  else {
    if (s.level !== null && s.level !== undefined) parts.push(`${t('level')} ${s.level}`);
    if (s.level_elo) parts.push(`Elo ${s.level_elo}`);
  }
  return [s.engine, parts.join(' · ')];
}

export function renderPlayers() {
  const s = page.state;
  const top = page.flipped ? 'sente' : 'gote';
  const bottom = page.flipped ? 'gote' : 'sente';
  $('top-mark').textContent = top === 'sente' ? '☗' : '☖';
  $('bottom-mark').textContent = bottom === 'sente' ? '☗' : '☖';
  for (const [id, color] of [['top-name', top], ['bottom-name', bottom]]) {
    const [name, strength] = playerName(color);
    $(id).replaceChildren(`${t(color)} · ${name}`, strength ? el('small', { text: strength }) : '');
    $(id).parentElement.title = `${name} ${strength}`;
  }
  $('row-top').classList.toggle('to-move', !s.result && s.side_to_move === top);
  $('row-bottom').classList.toggle('to-move', !s.result && s.side_to_move === bottom);
  $('row-top').dataset.color = top;
  $('row-bottom').dataset.color = bottom;
  renderClocks();
}

function fmtClock(ms) {
  const negative = ms < 0;
  ms = Math.max(0, ms);
  if (ms < 10000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}`;
  const seconds = Math.ceil(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return `${negative ? '-' : ''}${minutes}:${String(seconds % 60).padStart(2, '0')}`;
}

export function renderClocks() {
  const s = page.state;
  const clock = s && s.clock;
  const rows = [['top-clock', page.flipped ? 'sente' : 'gote'], ['bottom-clock', page.flipped ? 'gote' : 'sente']];
  for (const [id, color] of rows) {
    const box = $(id);
    if (!clock) { box.hidden = true; continue; }
    box.hidden = false;
    let ms = clock[`${color}_ms`];
    const running = clock.running === color && !s.result;
    if (running) ms -= performance.now() - page.stateAt;
    let text = fmtClock(ms);
    let low = false;
    if (ms <= 0 && clock.byoyomi_ms > 0) {
      const byoyomi = clock.byoyomi_ms + Math.min(0, ms);
      text = `${t('byoyomi')} ${Math.max(0, Math.ceil(byoyomi / 1000))}`;
      low = true;
    } else if (clock.byoyomi_ms > 0) {
      text += ` +${Math.round(clock.byoyomi_ms / 1000)}s`;
    } else if (clock.increment_ms > 0) {
      text += ` (+${Math.round(clock.increment_ms / 1000)}s)`;
    }
    box.textContent = text;
    box.classList.toggle('running', running);
    box.classList.toggle('low', low || (ms < 10000 && clock.byoyomi_ms === 0));
  }
}

// The running clock is redrawn ten times a second.
export function startClockTicks() {
  setInterval(() => {
    const s = page.state;
    if (s && s.clock && s.clock.running) renderClocks();
  }, 100);
}
