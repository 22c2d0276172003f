// The position editor: a board of its own in a dialog, pieces placed from a palette (both
// sides, promoted ones too) and taken off again, each side's pieces in hand, the side to move;
// the board cleared, the usual start, or the cursor's position to begin from. What was set up
// is data in the shapes of a BoardView; the session checks it (the rules' verdict, or the
// SFEN to start from) after every change. "Play from here" opens the new-game dialog with that
// position; "Analyse" starts a game of two people there with the analysis on.
import { $, el } from './dom.js';
import { t } from './labels.js';
import { page } from './state.js';
import { request, setup as checkSetup } from './session.js';
import { pieceEl } from './board.js';
import { openNewGame } from './dialogs.js';

const FILES = [5, 4, 3, 2, 1];
const RANKS = ['a', 'b', 'c', 'd', 'e'];
const HAND_KINDS = ['R', 'B', 'G', 'S', 'P'];
// The palette: each side's pieces, then the promoted ones (a button of its own takes a piece off).
const PALETTE = ['K', 'R', 'B', 'G', 'S', 'P', '+R', '+B', '+S', '+P'];

const emptyBoard = () => RANKS.map(() => FILES.map(() => ''));
const emptyHands = () => ({ sente: { R: 0, B: 0, G: 0, S: 0, P: 0 }, gote: { R: 0, B: 0, G: 0, S: 0, P: 0 } });
const edit = {
  board: emptyBoard(),
  hands: emptyHands(),
  side: 'sente',
  tool: 'K',
  check: null,   // the session's {sfen, problem} of the position as it is now
};
let asked = 0;   // counts the checks asked for: a late answer to an older one is dropped

const sideName = (side) => `${side === 'sente' ? '☗' : '☖'}${t(side)}`;

// The rules' reason in the page's language.
function problemText(p) {
  const words = t('setupProblems')[p.code];
  return words ? words({ side: p.side ? sideName(p.side) : '', kind: t('kindNames')[p.kind] || p.kind, file: p.file, count: p.count }) : p.text;
}

// What was set up, as the session reads it: a BoardView's board and hands, the side to move.
const position = () => ({ board: edit.board, hands: edit.hands, side_to_move: edit.side });

async function check() {
  const n = ++asked;
  const answer = await checkSetup(position());
  if (n !== asked) return;
  edit.check = answer;
  renderStatus();
}

// The SFEN of the position as it is now (asked again: a check may still be on its way), or
// null with the reason shown.
async function checkedSfen() {
  const n = ++asked;
  const answer = await checkSetup(position());
  if (n === asked) { edit.check = answer; renderStatus(); }
  return answer && answer.sfen ? answer.sfen : null;
}

function renderStatus() {
  const c = edit.check;
  const ok = !!(c && c.sfen);
  $('edit-play').disabled = !ok;
  $('edit-analyse').disabled = !ok;
  $('edit-sfen').value = ok ? c.sfen : '';
  const problem = $('edit-problem');
  problem.textContent = c && c.problem ? problemText(c.problem) : '';
  problem.hidden = !(c && c.problem);
  $('editor-dialog').dataset.valid = c ? String(ok) : '';  // for tests
  $('editor-dialog').dataset.problem = c && c.problem ? c.problem.code : '';
}

function pieceFor(p) {
  const piece = pieceEl(p);
  // The editor's board has sente at the bottom whatever the main board's orientation.
  const gote = p.replace('+', '') !== p.replace('+', '').toUpperCase();
  piece.classList.toggle('turned', gote);
  return piece;
}

function render() {
  const board = $('edit-board');
  for (const cell of board.children) {
    const sq = cell.dataset.editSquare;
    const p = edit.board[RANKS.indexOf(sq[1])][5 - Number(sq[0])];
    cell.replaceChildren(...(p ? [pieceFor(p)] : []));
  }
  for (const button of document.querySelectorAll('[data-edit-piece]')) {
    button.setAttribute('aria-pressed', String(button.dataset.editPiece === edit.tool));
    const p = button.dataset.editPiece;
    if (p) button.replaceChildren(pieceFor(p));
  }
  for (const input of document.querySelectorAll('[data-edit-hand]')) {
    const [side, kind] = input.dataset.editHand.split('-');
    if (document.activeElement !== input) input.value = String(edit.hands[side][kind]);
  }
  for (const label of document.querySelectorAll('[data-edit-hand-kind]')) {
    label.replaceChildren(pieceFor(label.dataset.editHandKind));
  }
  const form = $('edit-side-form');
  form.elements['edit-side'].value = edit.side;
  renderStatus();
}

function changed() {
  render();
  check();
}

function onSquare(sq, erase) {
  const row = RANKS.indexOf(sq[1]);
  const col = 5 - Number(sq[0]);
  const now = edit.board[row][col];
  // A click with the piece the square holds takes it off again.
  edit.board[row][col] = erase || !edit.tool || now === edit.tool ? '' : edit.tool;
  changed();
}

// A position the session drew (a BoardView, or the State's), taken into the editor.
function adopt(view) {
  if (!view) return;
  edit.board = view.board.map((row) => row.slice());
  edit.hands = emptyHands();
  for (const side of ['sente', 'gote']) for (const kind of HAND_KINDS) edit.hands[side][kind] = view.hands[side][kind] || 0;
  edit.side = view.side_to_move;
}

function build() {
  const board = $('edit-board');
  board.textContent = '';
  for (let r = 0; r < 5; r++) {
    for (let c = 0; c < 5; c++) {
      board.append(el('div', { class: 'sq', 'data-edit-square': `${FILES[c]}${RANKS[r]}`, role: 'gridcell' }));
    }
  }
  const palette = $('edit-palette');
  palette.textContent = '';
  // Each side's pieces on a row, its promoted ones on the next.
  for (const color of ['gote', 'sente']) {
    for (const promoted of [false, true]) {
      const row = el('div', { class: 'palette-row', 'data-color': color });
      for (const p of PALETTE.filter((q) => q.startsWith('+') === promoted)) {
        const piece = color === 'sente' ? p : p.toLowerCase();
        row.append(el('button', { type: 'button', class: 'palette-piece', 'data-edit-piece': piece }));
      }
      palette.append(row);
    }
  }
  palette.append(el('button', { type: 'button', class: 'palette-erase', 'data-edit-piece': '', 'data-i18n': 'erase' }, t('erase')));
  for (const side of ['gote', 'sente']) {
    const box = $(`edit-hand-${side}`);
    box.textContent = '';
    box.append(el('span', { class: 'edit-hand-side', text: side === 'sente' ? '☗' : '☖' }));
    for (const kind of HAND_KINDS) {
      const shown = side === 'sente' ? kind : kind.toLowerCase();
      box.append(el('label', { class: 'edit-hand-kind' },
        el('span', { class: 'edit-hand-piece', 'data-edit-hand-kind': shown }),
        el('input', { type: 'number', min: '0', max: '2', step: '1', value: '0', 'data-edit-hand': `${side}-${kind}` })));
    }
  }
}

export function openEditor() {
  adopt(page.state);
  edit.check = null;
  render();
  $('editor-dialog').showModal();
  check();
}

async function play() {
  const sfen = await checkedSfen();
  if (!sfen) return;
  $('editor-dialog').close();
  openNewGame(sfen);
}

async function analyse() {
  const sfen = await checkedSfen();
  if (!sfen || !page.state) return;
  $('editor-dialog').close();
  const started = await request('new', { sfen, sente: 'human', gote: 'human', engine: page.state.engine });
  if (started) request('analysis', { on: true, multipv: Number($('multipv').value) || 1 });
}

export function setupEditor() {
  build();
  $('btn-edit').addEventListener('click', openEditor);
  $('edit-board').addEventListener('click', (ev) => {
    const cell = ev.target.closest('[data-edit-square]');
    if (cell) onSquare(cell.dataset.editSquare, false);
  });
  // A right click takes a piece off whatever the tool.
  $('edit-board').addEventListener('contextmenu', (ev) => {
    const cell = ev.target.closest('[data-edit-square]');
    if (!cell) return;
    ev.preventDefault();
    onSquare(cell.dataset.editSquare, true);
  });
  $('edit-palette').addEventListener('click', (ev) => {
    const button = ev.target.closest('[data-edit-piece]');
    if (!button) return;
    edit.tool = button.dataset.editPiece;
    render();
  });
  $('editor-dialog').addEventListener('input', (ev) => {
    const input = ev.target.closest('[data-edit-hand]');
    if (!input) return;
    const [side, kind] = input.dataset.editHand.split('-');
    const n = Math.round(Number(input.value));
    edit.hands[side][kind] = Number.isFinite(n) && n > 0 ? n : 0;
    check();
  });
  $('edit-side-form').addEventListener('change', () => {
    edit.side = $('edit-side-form').elements['edit-side'].value;
    changed();
  });
  $('edit-clear').addEventListener('click', () => {
    edit.board = emptyBoard();
    edit.hands = emptyHands();
    changed();
  });
  // The usual start is the rules' (the session's answer), not the page's.
  $('edit-start').addEventListener('click', async () => {
    const start = await checkSetup({ start: true });
    if (start) { adopt(start.view); changed(); }
  });
  $('edit-current').addEventListener('click', () => { adopt(page.state); changed(); });
  $('edit-play').addEventListener('click', play);
  $('edit-analyse').addEventListener('click', analyse);
  $('edit-close').addEventListener('click', () => $('editor-dialog').close());
}
