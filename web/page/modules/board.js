// The board and the hands: drawn from the State (or from a BoardView while a line is
// previewed) in kanji or letters, moves by click or drag, the promotion dialog, a move that
// arrives slid in; at a move the review marked, the better move (an arrow, its squares lit).
// The session is the referee: the moves offered are State.legal_moves, grouped by where they
// start.
import { $, el, svgEl } from './dom.js';
import { lang, t } from './labels.js';
import { page } from './state.js';
import { request, preview as previewOf } from './session.js';
import { betterAt } from './review.js';

const FILES = [5, 4, 3, 2, 1];
const RANKS = ['a', 'b', 'c', 'd', 'e'];
const HAND_KINDS = ['R', 'B', 'G', 'S', 'P'];
const KANJI = { R: '飛', B: '角', G: '金', S: '銀', P: '歩', '+R': '龍', '+B': '馬', '+S': '全', '+P': 'と' };
// The international set: the Western initials, a promoted piece with its "+" (and red).
const LETTERS = { K: 'K', R: 'R', B: 'B', G: 'G', S: 'S', P: 'P', '+R': '+R', '+B': '+B', '+S': '+S', '+P': '+P' };
const KANJI_NUM = ['', '一', '二', '三', '四', '五'];
const ZEN_NUM = ['', '１', '２', '３', '４', '５'];

let suppressClick = false;  // a drag just ended: ignore the click that follows
let previewAsked = 0;       // counts the previews asked for: a late answer to an older one is dropped

// A square's place in State.board: rows rank a to e, columns file 5 to 1.
const sqIndex = (sq) => ({ row: RANKS.indexOf(sq[1]), col: 5 - Number(sq[0]) });
const sqName = (row, col) => `${5 - col}${RANKS[row]}`;
const colorOf = (p) => (p.replace('+', '') === p.replace('+', '').toUpperCase() ? 'sente' : 'gote');

// What the board shows: the line previewed, or the cursor's position.
function shownPosition() {
  return page.preview ? page.preview.view : page.state;
}

// What a piece (SFEN letters) shows in the piece set chosen.
function pieceGlyph(p) {
  const upper = p.toUpperCase();
  if (page.pieceSet === 'letters') return LETTERS[upper] || '?';
  if (upper === 'K') return colorOf(p) === 'sente' ? '玉' : '王';
  return KANJI[upper] || '?';
}

function pieceClass(p) {
  const color = colorOf(p);
  const turned = (color === 'gote') !== page.flipped;
  return `piece ${color}${p.startsWith('+') ? ' promoted' : ''}${turned ? ' turned' : ''}`
    + `${page.pieceSet === 'letters' ? ' letters' : ''}`;
}

export function pieceEl(p) {
  return el('div', { class: pieceClass(p), 'data-piece': p }, el('span', { text: pieceGlyph(p) }));
}

// The squares and the coordinates, for the orientation and the language.
export function buildBoard() {
  const board = $('board');
  board.textContent = '';
  for (let r = 0; r < 5; r++) {
    for (let c = 0; c < 5; c++) {
      const row = page.flipped ? 4 - r : r;
      const col = page.flipped ? 4 - c : c;
      board.append(el('div', { class: 'sq', 'data-square': sqName(row, col), role: 'gridcell' }));
    }
  }
  const files = page.flipped ? FILES.slice().reverse() : FILES;
  $('files-label').textContent = '';
  for (const f of files) $('files-label').append(el('span', { text: lang === 'ja' ? ZEN_NUM[f] : String(f) }));
  $('ranks-label').textContent = '';
  const ranks = page.flipped ? [4, 3, 2, 1, 0] : [0, 1, 2, 3, 4];
  for (const r of ranks) $('ranks-label').append(el('span', { text: lang === 'ja' ? KANJI_NUM[r + 1] : RANKS[r] }));
}

// Legal moves at the cursor, grouped by origin: "5d" or "P*".
function movesFrom(key) {
  if (!page.state || page.preview) return [];
  return page.state.legal_moves.filter((m) => (m[1] === '*' ? `${m[0]}*` : m.slice(0, 2)) === key);
}

function selectedKey() {
  const selected = page.selected;
  if (!selected) return null;
  return selected.kind === 'square' ? selected.sq : `${selected.piece}*`;
}

function canPlayNow() {
  const s = page.state;
  return s && !page.preview && !s.result && s.legal_moves.length > 0 && !s.thinking;
}

export function renderBoard() {
  const s = page.state;
  const pos = shownPosition();
  const dests = new Set(movesFrom(selectedKey() || '--').map((m) => m.slice(2, 4)));
  let lastFrom = null;
  let lastTo = null;
  if (pos.last_move) {
    lastTo = pos.last_move.slice(2, 4);
    if (pos.last_move[1] !== '*') lastFrom = pos.last_move.slice(0, 2);
  }
  let kingInCheck = null;
  if (!page.preview && s.in_check) {
    const k = s.side_to_move === 'sente' ? 'K' : 'k';
    pos.board.forEach((row, r) => row.forEach((p, c) => { if (p === k) kingInCheck = sqName(r, c); }));
  }
  const selected = page.selected;
  const arrivedTo = page.arrival && !page.preview ? page.arrival.slice(2, 4) : null;
  // The review's better move where the cursor's move was marked: its squares (a drop has none
  // to start from), drawn as the last move is.
  const best = page.preview ? null : betterAt(s.cursor);
  const better = best ? { usi: best.usi, to: best.usi.slice(2, 4), from: best.usi[1] === '*' ? null : best.usi.slice(0, 2) } : null;
  for (const sqEl of $('board').children) {
    const sq = sqEl.dataset.square;
    const { row, col } = sqIndex(sq);
    const p = pos.board[row][col];
    // A piece drawn as before stays (a slide under way goes on); another is drawn anew.
    const drawn = sqEl.querySelector('.piece');
    if (drawn) drawn.classList.remove('lifted');
    if (!p) sqEl.textContent = '';
    else if (!drawn || drawn.dataset.piece !== p || drawn.className !== pieceClass(p)) sqEl.replaceChildren(pieceEl(p));
    sqEl.classList.toggle('last-to', sq === lastTo);
    sqEl.classList.toggle('last-from', sq === lastFrom);
    sqEl.classList.toggle('selected', !!selected && selected.kind === 'square' && selected.sq === sq);
    sqEl.classList.toggle('dest', dests.has(sq));
    sqEl.classList.toggle('capture', dests.has(sq) && !!p);
    sqEl.classList.toggle('check', sq === kingInCheck);
    sqEl.classList.toggle('movable', !page.preview && movesFrom(sq).length > 0 && canPlayNow());
    sqEl.classList.toggle('arrived', sq === arrivedTo);
    sqEl.classList.toggle('better-from', !!better && sq === better.from);
    sqEl.classList.toggle('better-to', !!better && sq === better.to);
  }
  drawArrow(better);
  document.body.dataset.better = better ? better.usi : '';  // for tests
  renderHands(pos);
  $('preview-banner').hidden = !page.preview;
  document.body.dataset.preview = page.preview ? page.preview.moves.join(' ') : '';  // for tests
  $('board-area').classList.toggle('previewing', !!page.preview);
}

// The better move as an arrow over the board (a ring on its square for a drop), in the
// board's orientation; none when `better` is null.
function drawArrow(better) {
  let svg = $('better-arrow');
  if (!svg) {
    svg = svgEl('svg', { id: 'better-arrow', viewBox: '0 0 5 5', 'aria-hidden': 'true' });
    $('board-frame').append(svg);
  }
  svg.textContent = '';
  if (!better) return;
  const centre = (sq) => {
    const cells = [...$('board').children];
    const i = cells.findIndex((c) => c.dataset.square === sq);
    return [(i % 5) + 0.5, Math.floor(i / 5) + 0.5];
  };
  const [tx, ty] = centre(better.to);
  if (!better.from) {
    svg.append(svgEl('circle', { cx: tx, cy: ty, r: 0.4, class: 'better-ring' }));
    return;
  }
  const [fx, fy] = centre(better.from);
  // Stop short of the square's centre, where the head's point is.
  const len = Math.hypot(tx - fx, ty - fy);
  const head = 0.32;
  const ux = (tx - fx) / len;
  const uy = (ty - fy) / len;
  const bx = tx - ux * head;
  const by = ty - uy * head;
  svg.append(svgEl('line', { x1: fx, y1: fy, x2: bx, y2: by, class: 'better-shaft' }));
  const px = -uy * head * 0.7;
  const py = ux * head * 0.7;
  svg.append(svgEl('polygon', {
    points: `${tx},${ty} ${bx + px},${by + py} ${bx - px},${by - py}`, class: 'better-head',
  }));
}

function renderHands(pos) {
  const s = page.state;
  const top = page.flipped ? 'sente' : 'gote';
  const bottom = page.flipped ? 'gote' : 'sente';
  const selected = page.selected;
  for (const [id, color] of [['hand-top', top], ['hand-bottom', bottom]]) {
    const box = $(id);
    box.textContent = '';
    box.dataset.color = color;
    for (const kind of HAND_KINDS) {
      const n = pos.hands[color][kind] || 0;
      if (!n) continue;
      const key = `${kind}*`;
      const canDrop = !page.preview && color === s.side_to_move && movesFrom(key).length > 0 && canPlayNow();
      const isSelected = selected && selected.kind === 'hand' && selected.piece === kind && color === s.side_to_move;
      const piece = pieceEl(color === 'sente' ? kind : kind.toLowerCase());
      piece.classList.remove('turned'); // hands read upright, turned only for the far side
      if (id === 'hand-top') piece.classList.add('turned');
      box.append(el('div', {
        class: `hand-piece${canDrop ? ' movable' : ''}${isSelected ? ' selected' : ''}`,
        'data-hand': `${color}-${kind}`,
        title: `${pieceGlyph(kind)} ×${n}`,
      }, piece, n > 1 ? el('span', { class: 'count', text: String(n) }) : null));
    }
    if (!box.children.length) box.append(el('span', { class: 'hand-empty', text: t('noHand') }));
  }
}

// Shows the position after `moves` (USI) from node `node` on the board, as the session
// draws it, until the cursor moves or the preview is closed.
export async function showPreview(node, moves) {
  const asked = ++previewAsked;
  const view = await previewOf(node, moves);
  if (!view || asked !== previewAsked || !page.state || page.state.cursor !== node) return;
  page.preview = { node, moves, view };
  page.selected = null;
  renderBoard();
}

// Leaves the preview (and drops one still being asked for); the caller redraws.
export function closePreview() {
  previewAsked++;
  page.preview = null;
}

// The piece of `usi`, drawn on its square, slides there from where it came: its origin
// square, or its side's hand for a drop (the hand's piece, or the hand's row when that was
// the last one). Not where the user asked for reduced motion. Returns whether it slid.
export function slideIn(usi) {
  const to = document.querySelector(`[data-square="${usi.slice(2, 4)}"]`);
  const piece = to && to.querySelector('.piece');
  if (!piece || !piece.animate || window.matchMedia('(prefers-reduced-motion: reduce)').matches) return false;
  let from;
  if (usi[1] === '*') {
    const color = colorOf(piece.dataset.piece);
    from = document.querySelector(`[data-hand="${color}-${usi[0]}"]`) || document.querySelector(`.hand[data-color="${color}"]`);
  } else {
    from = document.querySelector(`[data-square="${usi.slice(0, 2)}"]`);
  }
  if (!from) return false;
  const a = from.getBoundingClientRect();
  const b = piece.getBoundingClientRect();
  const dx = a.left + a.width / 2 - (b.left + b.width / 2);
  const dy = a.top + a.height / 2 - (b.top + b.height / 2);
  // The piece's own transform (turned or not) at both ends, the shift before it.
  const rest = getComputedStyle(piece).transform;
  const own = rest === 'none' ? '' : rest;
  piece.animate(
    [{ transform: `translate(${dx}px, ${dy}px) ${own}` }, { transform: own || 'none' }],
    { duration: 150, easing: 'ease-out' },
  );
  return true;
}

// ---------------------------------------------------------------- moving

async function tryMove(to) {
  const candidates = movesFrom(selectedKey()).filter((m) => m.slice(2, 4) === to);
  if (!candidates.length) return false;
  let usi;
  if (candidates.length === 1) {
    usi = candidates[0];
  } else {
    const promote = await askPromotion();
    if (promote === null) { page.selected = null; renderBoard(); return true; }
    usi = candidates.find((m) => m.endsWith('+') === promote);
  }
  await sendMove(usi);
  return true;
}

async function sendMove(usi) {
  page.selected = null;
  page.busy = true;
  page.sent = usi;
  renderBoard();
  await request('move', { move: usi });
  // Its state has been shown by now (the answer's, or the stream's before it).
  page.sent = null;
  page.busy = false;
  renderBoard();
}

// Resolves to true (promote), false (do not) or null (neither: the dialog was dismissed).
function askPromotion() {
  const dialog = $('promo-dialog');
  const { row, col } = sqIndex(page.selected.sq);
  const p = page.state.board[row][col];
  const letters = page.pieceSet === 'letters';
  $('promo-yes-piece').replaceChildren(el('span', { text: pieceGlyph(`+${p.toUpperCase()}`) }));
  $('promo-no-piece').replaceChildren(el('span', { text: pieceGlyph(p) }));
  $('promo-yes-piece').classList.toggle('letters', letters);
  $('promo-no-piece').classList.toggle('letters', letters);
  return new Promise((resolve) => {
    const done = (answer) => {
      dialog.removeEventListener('click', onClick);
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const onClick = (ev) => {
      const button = ev.target.closest('[data-promote]');
      if (button) done(button.dataset.promote === 'yes');
      else if (ev.target === dialog) done(null);
    };
    const onCancel = (ev) => { ev.preventDefault(); done(null); };
    dialog.addEventListener('click', onClick);
    dialog.addEventListener('cancel', onCancel);
    dialog.showModal();
  });
}

async function onSquare(sq) {
  const selected = page.selected;
  if (!page.state || page.busy || page.preview) return;
  if (selected && await tryMove(sq)) return;
  if (canPlayNow() && movesFrom(sq).length > 0 && !(selected && selected.kind === 'square' && selected.sq === sq)) {
    page.selected = { kind: 'square', sq };
  } else {
    page.selected = null;
  }
  renderBoard();
}

function onHand(color, kind) {
  const s = page.state;
  const selected = page.selected;
  if (!s || page.busy || page.preview) return;
  if (color === s.side_to_move && canPlayNow() && movesFrom(`${kind}*`).length > 0
      && !(selected && selected.kind === 'hand' && selected.piece === kind)) {
    page.selected = { kind: 'hand', piece: kind };
  } else {
    page.selected = null;
  }
  renderBoard();
}

// Drag and drop with pointer events: press on a movable piece, release on a destination.
function setupDrag() {
  let drag = null;
  const down = (ev) => {
    const s = page.state;
    if (ev.button !== 0 || !s || page.busy || page.preview) return;
    const sqEl = ev.target.closest('[data-square]');
    const handEl = ev.target.closest('[data-hand]');
    let source = null;
    if (sqEl && movesFrom(sqEl.dataset.square).length && canPlayNow()) {
      source = { kind: 'square', sq: sqEl.dataset.square };
    } else if (handEl) {
      const [color, kind] = handEl.dataset.hand.split('-');
      if (color === s.side_to_move && movesFrom(`${kind}*`).length && canPlayNow()) source = { kind: 'hand', piece: kind };
    }
    if (!source) return;
    const pieceNode = (sqEl || handEl).querySelector('.piece');
    drag = { source, x: ev.clientX, y: ev.clientY, ghost: null, pieceNode, id: ev.pointerId };
  };
  const move = (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    if (!drag.ghost) {
      if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 6) return;
      page.selected = drag.source;
      renderBoard();
      const ghost = drag.pieceNode.cloneNode(true);
      ghost.classList.add('ghost');
      const size = $('board').firstElementChild.getBoundingClientRect().width;
      ghost.style.width = ghost.style.height = `${size * 0.86}px`;
      document.body.append(ghost);
      drag.ghost = ghost;
      document.body.classList.add('dragging');
      const origin = drag.source.kind === 'square'
        ? document.querySelector(`[data-square="${drag.source.sq}"] .piece`)
        : document.querySelector(`[data-hand="${page.state.side_to_move}-${drag.source.piece}"] .piece`);
      if (origin) origin.classList.add('lifted');
    }
    drag.ghost.style.left = `${ev.clientX}px`;
    drag.ghost.style.top = `${ev.clientY}px`;
    ev.preventDefault();
  };
  const up = async (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (!d.ghost) return;  // a click: the click handler selects
    d.ghost.remove();
    document.body.classList.remove('dragging');
    suppressClick = true;
    setTimeout(() => { suppressClick = false; }, 0);
    const target = document.elementFromPoint(ev.clientX, ev.clientY);
    const sqEl = target && target.closest('[data-square]');
    page.selected = d.source;
    if (!sqEl || !(await tryMove(sqEl.dataset.square))) {
      page.selected = null;
      renderBoard();
    }
  };
  $('play').addEventListener('pointerdown', down);
  window.addEventListener('pointermove', move, { passive: false });
  window.addEventListener('pointerup', up);
  window.addEventListener('pointercancel', () => {
    if (drag && drag.ghost) { drag.ghost.remove(); document.body.classList.remove('dragging'); }
    drag = null;
    if (page.state) renderBoard();
  });
}

export function setupBoard() {
  buildBoard();
  $('board').addEventListener('click', (ev) => {
    if (suppressClick) return;
    const sq = ev.target.closest('[data-square]');
    if (sq) onSquare(sq.dataset.square);
  });
  for (const id of ['hand-top', 'hand-bottom']) {
    $(id).addEventListener('click', (ev) => {
      if (suppressClick) return;
      const hand = ev.target.closest('[data-hand]');
      if (hand) { const [color, kind] = hand.dataset.hand.split('-'); onHand(color, kind); }
    });
  }
  setupDrag();
  $('preview-exit').addEventListener('click', () => { closePreview(); renderBoard(); });
}
