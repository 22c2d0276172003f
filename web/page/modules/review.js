// The review of a game: the Review button and its progress, each side's accuracy and its
// marked moves counted, the marked moves in turn (previous / next), and at a marked move the
// better move in words. The move list, the graph and the board show the marks and the better
// move from `markAt` and `betterAt`. Every judgement is the session's (State.review: each
// move's loss, mark and better move in both notations, each side's accuracy); the page shows it.
import { $, el } from './dom.js';
import { lang, t } from './labels.js';
import { page } from './state.js';
import { request } from './session.js';

// A mark's symbol; its colour is the stylesheet's (.mark-badge.NAME, .g-mark.NAME).
export const MARK_SYMBOLS = {
  inaccuracy: '?!', mistake: '?', blunder: '??', missed_mate: '#?', allowed_mate: '#??',
};
const MARK_ORDER = ['inaccuracy', 'mistake', 'blunder', 'missed_mate', 'allowed_mate'];

function review() {
  return (page.state && page.state.review) || null;
}

// The reviewed move that led to `node`, if it has a mark.
export function markAt(node) {
  const r = review();
  if (!r) return null;
  const m = r.moves.find((move) => move.node === node);
  return m && m.mark ? m : null;
}

// At a marked move: the engine's better move where it was played ({usi, text, mover}), or null.
export function betterAt(node) {
  const m = markAt(node);
  if (!m || !m.best) return null;
  const text = (lang === 'ja' ? m.best_ja : m.best_en) || m.best;
  return { usi: m.best, text, mover: m.mover };
}

// The plies of the marked moves, in the line's order.
function markedPlies() {
  const s = page.state;
  const plies = [];
  s.line.forEach((entry, i) => { if (markAt(entry.node)) plies.push(i + 1); });
  return plies;
}

// A game against an engine goes on: its positions are not to be reviewed yet.
function gameOn(s) {
  return !s.result && (s.players.sente === 'engine' || s.players.gote === 'engine');
}

function goToMark(direction) {
  const s = page.state;
  if (!s) return;
  const plies = markedPlies();
  const ply = direction === 'next' ? plies.find((p) => p > s.ply) : plies.filter((p) => p < s.ply).pop();
  if (ply === undefined) return;
  request('goto', { node: s.line[ply - 1].node });
}

export function markTitle(mark) {
  return t('markNames')[mark] || mark;
}

export function renderReview() {
  const s = page.state;
  if (!s) return;
  const r = review();
  const running = !!r && !r.done;
  document.body.dataset.review = r ? (r.done ? 'done' : 'running') : '';  // for tests
  const button = $('btn-review');
  button.disabled = running || gameOn(s) || s.line.length === 0;
  button.title = gameOn(s) ? t('reviewAfterGame') : t('reviewTitle');
  button.textContent = running ? t('reviewing') : t('review');
  // The analyser is the review's until it is done.
  $('btn-analysis').disabled = running;
  $('btn-mate').disabled = running;

  const progress = $('review-progress');
  progress.hidden = !r;
  if (r) {
    $('review-bar').max = Math.max(1, r.total);
    $('review-bar').value = r.searched;
    $('review-count').textContent = t('reviewProgress')(r.searched, r.total);
  }

  const summary = $('review-summary');
  summary.textContent = '';
  summary.hidden = !r;
  if (r) {
    const counts = { sente: {}, gote: {} };
    for (const m of r.moves) if (m.mark) counts[m.mover][m.mark] = (counts[m.mover][m.mark] || 0) + 1;
    const head = el('tr', {}, el('th', { text: '' }), el('th', { text: t('accuracy') }),
      ...MARK_ORDER.map((mark) => el('th', { title: markTitle(mark) },
        el('span', { class: `mark-badge ${mark}`, text: MARK_SYMBOLS[mark] }))));
    const rows = ['sente', 'gote'].map((side) => {
      const accuracy = r.accuracy && typeof r.accuracy[side] === 'number' ? `${r.accuracy[side].toFixed(1)}%` : '–';
      return el('tr', { 'data-side': side },
        el('th', { text: `${side === 'sente' ? '☗' : '☖'}${t(side)}` }),
        el('td', { class: 'accuracy', 'data-accuracy': side, text: accuracy }),
        ...MARK_ORDER.map((mark) => el('td', { 'data-count': mark, title: markTitle(mark), text: String(counts[side][mark] || 0) })));
    });
    summary.append(el('table', { class: 'review-table' }, el('thead', {}, head), el('tbody', {}, ...rows)));
  }

  const plies = markedPlies();
  const prev = document.querySelector('[data-review-nav="prev"]');
  const next = document.querySelector('[data-review-nav="next"]');
  prev.disabled = !plies.some((p) => p < s.ply);
  next.disabled = !plies.some((p) => p > s.ply);
  $('review-nav').hidden = !r;

  const here = markAt(s.cursor);
  const better = betterAt(s.cursor);
  const box = $('review-here');
  box.textContent = '';
  box.hidden = !here;
  if (here) {
    box.append(el('span', { class: `mark-badge ${here.mark}`, text: MARK_SYMBOLS[here.mark] }), ' ',
      el('span', { text: `${markTitle(here.mark)} (−${here.loss.toFixed(1)}%)` }));
    if (better) {
      box.append(' · ', el('span', { id: 'review-better', 'data-usi': better.usi, text: `${t('better')}: ${better.text}` }));
    }
  }
}

export function setupReview() {
  $('btn-review').addEventListener('click', () => {
    if (!page.state) return;
    request('review', {});
  });
  for (const button of document.querySelectorAll('[data-review-nav]')) {
    button.addEventListener('click', () => goToMark(button.dataset.reviewNav));
  }
}
