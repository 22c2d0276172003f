// The page of the minishogi board: the board, the game, analysis and records. Plain ES
// modules, no dependencies. The session is the referee and the notary (legal moves, the
// moves in words, the positions of a line, the win probabilities all come from it); the page
// draws and sends what the user does, through a transport: HTTP under `engine gui`, the
// session in WebAssembly on the static site (transport-local.js).
import { $ } from './dom.js';
import { lang, setLang, t } from './labels.js';
import { page } from './state.js';
import { recall, remember } from './prefs.js';
import { defaultPieceSet } from './fonts.js';
import { connect, request, showError, watchForMissedStates } from './session.js';
import { httpTransport } from './transport-http.js';
import { buildBoard, closePreview, renderBoard, setupBoard, slideIn } from './board.js';
import { navigate, renderMoves, setupMoves } from './moves.js';
import { followCursor, forgetReports, onInfo, onMate, renderAnalysis, renderEval, renderGraph, setupAnalysis } from './analysis.js';
import { renderPlayers, startClockTicks } from './clocks.js';
import { renderStatus } from './status.js';
import { renderTools, setupDialogs } from './dialogs.js';
import { isMuted, playMoveSound, setMuted, setupSound } from './sound.js';
import { renderReview, setupReview } from './review.js';
import { setupEditor } from './editor.js';
import { orientForPuzzle, renderPuzzle, setupPuzzles } from './puzzles.js';

let lastFlipAuto = null;  // the players of the last game whose side set the orientation

// For tests and the curious: the moves that slid in, in order.
const motion = { slid: [] };
window.minishogiMotion = motion;

// The move that brought `s`'s cursor on from `shown`'s along the same line, if the board should
// show it coming: a new move at the line's end (`fresh`: an engine's reply, or one made
// elsewhere), or one step forward along the line. A jump, another game, a step back: none.
function arrivalOf(shown, s) {
  if (!shown || shown.game !== s.game || !s.last_move || s.ply <= shown.ply) return null;
  const through = shown.ply === 0 || (s.line[shown.ply - 1] && s.line[shown.ply - 1].node === shown.cursor);
  if (!through) return null;
  const fresh = shown.ply === shown.line.length;
  if (!fresh && s.ply !== shown.ply + 1) return null;
  return { usi: s.last_move, fresh };
}

function setState(s) {
  // A state older than the one shown (when the session numbers them) is dropped.
  const shown = page.state;
  if (shown && typeof s.version === 'number' && typeof shown.version === 'number' && s.version < shown.version) return;
  page.state = s;
  page.stateAt = performance.now();
  // Another game (a new one, a record, a move taken back): node numbers start again, and
  // what the engines said of the old game's nodes is not about this one.
  if (shown && shown.game !== s.game) forgetReports();
  const moved = !shown || shown.cursor !== s.cursor || shown.sfen !== s.sfen || shown.game !== s.game;
  // The user's own move is where the user put it: it neither slides nor clicks.
  let arrival = arrivalOf(shown, s);
  if (arrival && arrival.usi === page.sent) arrival = null;
  if (moved) {
    page.selected = null;
    page.arrival = arrival ? arrival.usi : null;
    closePreview();
    followCursor(s);
  }
  // Orient the board for a person playing gote alone, once a game.
  const players = `${s.players.sente}/${s.players.gote}`;
  if (players !== lastFlipAuto) {
    lastFlipAuto = players;
    const gote = s.players.gote === 'human' && s.players.sente === 'engine';
    if (gote !== page.flipped) { page.flipped = gote; buildBoard(); }
  }
  if (orientForPuzzle(s)) buildBoard();
  if (s.error) showError(`${t('engineError')}: ${s.error}`);
  render();
  if (arrival) {
    if (slideIn(arrival.usi)) motion.slid.push(arrival.usi);
    if (arrival.fresh) playMoveSound();
  }
}

function render() {
  const s = page.state;
  if (!s) return;
  // Plain facts for scripts and tests: the cursor, whose turn, whether the engine thinks.
  const facts = document.body.dataset;
  facts.cursor = String(s.cursor);
  facts.ply = String(s.ply);
  facts.turn = s.side_to_move;
  facts.thinking = String(!!s.thinking);
  facts.result = s.result ? (s.result.winner || 'draw') : '';
  facts.analysis = String(!!s.analysis.on);
  const c = s.clock;
  facts.clock = c ? `${c.sente_ms} ${c.gote_ms} ${c.byoyomi_ms} ${c.increment_ms}` : '';
  facts.pieces = page.pieceSet;
  facts.sound = isMuted() ? 'off' : 'on';
  renderStatus();
  renderBoard();
  renderPlayers();
  renderMoves();
  renderAnalysis();
  renderEval();
  renderGraph();
  renderTools();
  renderReview();
  renderPuzzle();
}

function setup() {
  setupBoard();
  setupMoves();
  setupAnalysis();
  setupDialogs();
  setupSound();
  setupReview();
  setupEditor();
  setupPuzzles();
  const remembered = recall('pieces');
  page.pieceSet = remembered === 'letters' || remembered === 'kanji' ? remembered : defaultPieceSet();
  $('btn-pieces').addEventListener('click', () => {
    page.pieceSet = page.pieceSet === 'letters' ? 'kanji' : 'letters';
    remember('pieces', page.pieceSet);
    render();
  });
  $('btn-sound').addEventListener('click', () => { setMuted(!isMuted()); render(); });
  $('btn-flip').addEventListener('click', () => { page.flipped = !page.flipped; buildBoard(); render(); });
  $('btn-lang').addEventListener('click', () => {
    setLang(lang === 'ja' ? 'en' : 'ja');
    buildBoard();
    render();
  });
  $('btn-undo').addEventListener('click', () => request('undo', {}));
  $('error-close').addEventListener('click', () => { $('error').hidden = true; });
  document.addEventListener('keydown', (ev) => {
    const tag = (ev.target.tagName || '').toLowerCase();
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || document.querySelector('dialog[open]')) return;
    const keys = { ArrowLeft: 'back', ArrowRight: 'forward', Home: 'first', End: 'last' };
    if (keys[ev.key]) { ev.preventDefault(); navigate(keys[ev.key]); }
    else if (ev.key === 'Escape') { page.selected = null; closePreview(); if (page.state) renderBoard(); }
  });
  startClockTicks();
}

// HTTP when the server put its token in the page; otherwise the page is on the static site.
async function chooseTransport() {
  const meta = document.querySelector('meta[name="token"]');
  const token = meta ? meta.content : '';
  if (token && !token.startsWith('{{')) return httpTransport(token);
  const { localTransport } = await import('./transport-local.js');
  return localTransport();
}

async function start() {
  setup();
  let transport;
  try {
    transport = await chooseTransport();
  } catch (e) {
    showError(`the session could not start: ${e.message || e}`);
    return;
  }
  connect(transport, { state: setState, info: onInfo, mate: onMate });
  const first = await request('state');
  if (!first && $('error').hidden) showError('no state from the session');
  watchForMissedStates();
}

start();
