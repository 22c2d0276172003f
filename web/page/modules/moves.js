// The move list (the line through the cursor, in the notation the session wrote, with its
// variations and the review's marks) and navigation along it.
import { $, el } from './dom.js';
import { lang, t, resultText } from './labels.js';
import { page, nodeAtPly } from './state.js';
import { request } from './session.js';
import { closePreview } from './board.js';
import { MARK_SYMBOLS, markAt, markTitle } from './review.js';

const moveText = (entry) => (lang === 'ja' ? entry.ja : entry.en);

export function renderMoves() {
  const s = page.state;
  const box = $('moves');
  const prevScroll = box.scrollTop;
  box.textContent = '';
  box.append(el('div', {
    class: `move start${s.ply === 0 ? ' current' : ''}`, 'data-goto': '0', role: 'listitem',
  }, el('span', { class: 'num', text: '' }), el('span', { class: 'text', text: t('startPosition') })));
  s.line.forEach((entry, i) => {
    const ply = i + 1;
    const variations = entry.variations || [];
    const marked = markAt(entry.node);
    const row = el('div', {
      class: `move${ply === s.ply ? ' current' : ''}${ply > s.ply ? ' future' : ''}`,
      'data-node': String(entry.node), 'data-usi': entry.usi, role: 'listitem',
    }, el('span', { class: 'num', text: String(ply) }), el('span', { class: 'text', text: moveText(entry) }),
    marked ? el('span', { class: `mark-badge ${marked.mark}`, 'data-mark': marked.mark, title: markTitle(marked.mark), text: MARK_SYMBOLS[marked.mark] }) : null,
    variations.length ? el('span', { class: 'has-var', title: t('variation'), text: '+' }) : null);
    box.append(row);
    if (variations.length) {
      const list = el('div', { class: 'variations' });
      for (const v of variations) {
        list.append(el('button', { type: 'button', class: 'var', 'data-var-node': String(v.node), title: t('variation') },
          `↳ ${moveText(v)}`));
      }
      box.append(list);
    }
  });
  if (s.result) {
    box.append(el('div', { class: 'move result-row' }, el('span', { class: 'num' }), el('span', { class: 'text', text: resultText(s.result) })));
  }
  box.scrollTop = prevScroll;
  const current = box.querySelector('.current');
  if (current) {
    const b = box.getBoundingClientRect();
    const r = current.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - b.height / 2;
  }
  const atEnd = s.ply >= s.line.length;
  document.querySelector('[data-nav="first"]').disabled = s.ply === 0;
  document.querySelector('[data-nav="back"]').disabled = s.ply === 0;
  document.querySelector('[data-nav="forward"]').disabled = atEnd;
  document.querySelector('[data-nav="last"]').disabled = atEnd;
}

// where: 'first', 'back', 'forward' or 'last'.
export function navigate(where) {
  const s = page.state;
  if (!s) return;
  let ply = s.ply;
  if (where === 'first') ply = 0;
  else if (where === 'back') ply = s.ply - 1;
  else if (where === 'forward') ply = s.ply + 1;
  else if (where === 'last') ply = s.line.length;
  ply = Math.max(0, Math.min(s.line.length, ply));
  if (ply === s.ply && !page.preview) return;
  closePreview();
  request('goto', { node: nodeAtPly(ply) });
}

export function setupMoves() {
  document.querySelectorAll('[data-nav]').forEach((b) => b.addEventListener('click', () => navigate(b.dataset.nav)));
  $('moves').addEventListener('click', (ev) => {
    const variation = ev.target.closest('[data-var-node]');
    const move = ev.target.closest('[data-node]');
    const start = ev.target.closest('[data-goto]');
    const node = variation ? variation.dataset.varNode : move ? move.dataset.node : start ? start.dataset.goto : null;
    if (node !== null) { closePreview(); request('goto', { node: Number(node) }); }
  });
}
