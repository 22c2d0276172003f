// Puzzle mode: the puzzle file (puzzles/minishogi-puzzles.json beside the page) filtered by
// theme and difficulty, one puzzle at a time, and the progress kept in the browser. The
// session judges: it checks the puzzle, the person's moves, plays the opponent's replies,
// gives hints and the solution (State.puzzle); this module only picks puzzles and shows them.
import { $, el } from './dom.js';
import { lang, t, themeName } from './labels.js';
import { page } from './state.js';
import { recallJson, rememberJson } from './prefs.js';
import { request, showError } from './session.js';

const FILE = 'puzzles/minishogi-puzzles.json';

const mode = {
  open: false,      // the panel is shown (puzzle mode)
  puzzles: null,    // the file's puzzles, once read
  loading: null,    // the file being read
  current: null,    // the id of the puzzle started last from this page
  orientedFor: null, // the game whose puzzle set the board's orientation
  flippedBefore: null, // the orientation before puzzle mode, restored after it
  leaving: false,   // the person left puzzle mode (not a new game that ended it)
  noMatch: false,   // the filters leave no puzzle
  wasShown: false,  // the last state drawn had a puzzle
  recorded: null,   // the game and status last recorded in the progress
};

// Progress: the ids solved and failed (solved wins: a puzzle failed, then solved, is solved).
function progress() {
  const saved = recallJson('puzzle-progress') || {};
  const ids = (list) => new Set(Array.isArray(list) ? list.filter((id) => typeof id === 'string') : []);
  return { solved: ids(saved.solved), failed: ids(saved.failed) };
}

function record(id, status) {
  const p = progress();
  if (status === 'solved') { p.solved.add(id); p.failed.delete(id); }
  else if (!p.solved.has(id)) p.failed.add(id);
  rememberJson('puzzle-progress', { solved: [...p.solved], failed: [...p.failed] });
}

// The file's puzzles (read once): those with the fields the session needs.
async function loadPuzzles() {
  if (mode.puzzles) return mode.puzzles;
  mode.loading ??= (async () => {
    const response = await fetch(FILE);
    if (!response.ok) throw new Error(`${FILE}: ${response.status} ${response.statusText}`);
    const file = await response.json();
    if (!file || !Array.isArray(file.puzzles)) throw new Error(`${FILE}: no puzzles`);
    return file.puzzles.filter((p) => p && typeof p.id === 'string' && typeof p.sfen === 'string' && Array.isArray(p.moves));
  })();
  try {
    mode.puzzles = await mode.loading;
  } catch (e) {
    mode.loading = null;
    throw e;
  }
  fillFilters();
  return mode.puzzles;
}

function fillFilters() {
  const counts = new Map();
  for (const p of mode.puzzles) for (const theme of p.themes || []) counts.set(theme, (counts.get(theme) || 0) + 1);
  const saved = recallJson('puzzle-filter') || {};
  const theme = $('puzzle-theme');
  theme.replaceChildren(el('option', { value: '', 'data-i18n': 'allThemes', text: t('allThemes') }));
  for (const name of [...counts.keys()].sort()) theme.append(el('option', { value: name, 'data-theme': name, text: themeName(name) }));
  theme.value = counts.has(saved.theme) ? saved.theme : '';
  const difficulty = $('puzzle-difficulty');
  difficulty.replaceChildren(el('option', { value: '', 'data-i18n': 'allLevels', text: t('allLevels') }));
  for (let d = 1; d <= 5; d++) difficulty.append(el('option', { value: String(d), text: stars(d) }));
  difficulty.value = /^[1-5]$/.test(String(saved.difficulty)) ? String(saved.difficulty) : '';
}

const stars = (d) => '★'.repeat(d) + '☆'.repeat(Math.max(0, 5 - d));

// The puzzles the filters let through, in the file's order.
function chosen() {
  const theme = $('puzzle-theme').value;
  const difficulty = $('puzzle-difficulty').value;
  return (mode.puzzles || []).filter((p) => (!theme || (p.themes || []).includes(theme))
    && (!difficulty || String(p.difficulty) === difficulty));
}

// The next puzzle after `id` among those chosen: the first not solved yet, else the next one.
function nextAfter(id) {
  const list = chosen();
  if (!list.length) return null;
  const at = list.findIndex((p) => p.id === id);
  const order = list.slice(at + 1).concat(list.slice(0, at + 1));
  const solved = progress().solved;
  return order.find((p) => !solved.has(p.id) && p.id !== id) || order[0];
}

async function start(puzzle) {
  mode.noMatch = !puzzle;
  if (!puzzle) { render(); return; }
  mode.current = puzzle.id;
  await request('puzzle_start', { id: puzzle.id, sfen: puzzle.sfen, moves: puzzle.moves });
}

async function open() {
  mode.open = true;
  render();
  try {
    await loadPuzzles();
  } catch (e) {
    showError(e.message || String(e));
    return;
  }
  const s = page.state;
  if (s && s.puzzle) { render(); return; }
  await start(nextAfter(null));
}

async function close() {
  mode.open = false;
  mode.noMatch = false;
  mode.leaving = true;
  if (page.state && page.state.puzzle) await request('puzzle_end', {});
  render();
}

// The board's orientation for a state (main.js asks before drawing it): the solver at the
// bottom, once a puzzle; the person's own orientation back when they leave the puzzles (a new
// game that ends them orients itself). Whether it changed.
export function orientForPuzzle(s) {
  const puzzle = s.puzzle;
  if (puzzle) {
    if (s.game === mode.orientedFor) return false;
    mode.orientedFor = s.game;
    if (mode.flippedBefore === null) mode.flippedBefore = page.flipped;
    const flipped = puzzle.solver === 'gote';
    if (flipped === page.flipped) return false;
    page.flipped = flipped;
    return true;
  }
  const restore = mode.leaving && mode.flippedBefore !== null && mode.flippedBefore !== page.flipped;
  if (restore) page.flipped = mode.flippedBefore;
  mode.flippedBefore = null;
  mode.orientedFor = null;
  mode.leaving = false;
  return restore;
}

const shownPuzzle = () => (mode.puzzles || []).find((p) => p.id === page.state?.puzzle?.id) || null;

export function setupPuzzles() {
  $('btn-puzzles').addEventListener('click', () => (mode.open ? close() : open()));
  $('puzzle-hint').addEventListener('click', () => request('puzzle_hint', {}));
  $('puzzle-solution').addEventListener('click', () => request('puzzle_solution', {}));
  $('puzzle-retry').addEventListener('click', () => { const p = shownPuzzle(); if (p) start(p); });
  $('puzzle-next').addEventListener('click', () => start(nextAfter(page.state?.puzzle?.id ?? mode.current)));
  for (const id of ['puzzle-theme', 'puzzle-difficulty']) {
    $(id).addEventListener('change', () => {
      rememberJson('puzzle-filter', { theme: $('puzzle-theme').value, difficulty: $('puzzle-difficulty').value });
      start(nextAfter(null));
    });
  }
}

// Marks the hint's piece: the square it stands on, or the solver's hand piece.
function markHint(hint, solver) {
  for (const e of document.querySelectorAll('.hint')) e.classList.remove('hint');
  if (!hint) return;
  const target = hint.square
    ? document.querySelector(`[data-square="${hint.square}"]`)
    : document.querySelector(`[data-hand="${solver}-${hint.drop}"]`);
  if (target) target.classList.add('hint');
}

// Called after the page has drawn a state: the panel, the toolbar in puzzle mode, the hint on
// the board, the progress recorded.
export function renderPuzzle() {
  render();
}

function render() {
  const s = page.state;
  const puzzle = s && s.puzzle;
  // A session that has a puzzle (a page reloaded under `engine gui`) is in puzzle mode; one
  // whose puzzle ended (a new game, a record) is not.
  if (puzzle && !mode.open) {
    mode.open = true;
    if (!mode.puzzles) loadPuzzles().then(render, (e) => showError(e.message || String(e)));
  }
  if (!puzzle && mode.wasShown && !mode.noMatch) mode.open = false;
  mode.wasShown = !!puzzle;
  const facts = document.body.dataset;
  facts.mode = mode.open ? 'puzzle' : '';
  facts.puzzle = puzzle ? puzzle.status : '';
  facts.puzzleId = puzzle ? puzzle.id : '';
  $('btn-puzzles').setAttribute('aria-pressed', String(mode.open));
  $('btn-puzzles').textContent = t('puzzles');
  $('puzzle-panel').hidden = !mode.open;
  if (!mode.open) {
    markHint(null);
    return;
  }
  const p = progress();
  const all = mode.puzzles ? mode.puzzles.length : 0;
  const counts = $('puzzle-progress');
  counts.dataset.solved = String(p.solved.size);
  counts.dataset.failed = String(p.failed.size);
  counts.textContent = t('puzzleProgress')(p.solved.size, p.failed.size, all);
  const solving = puzzle && puzzle.status === 'solving';
  const outcome = puzzle && puzzle.status !== 'solving' ? `${s.game} ${puzzle.status}` : null;
  if (outcome && outcome !== mode.recorded) { mode.recorded = outcome; record(puzzle.id, puzzle.status); }
  for (const o of document.querySelectorAll('#puzzle-theme [data-theme]')) o.textContent = themeName(o.dataset.theme);
  const info = shownPuzzle();
  $('puzzle-info').textContent = info ? describe(info) : '';
  const mark = puzzle && puzzle.solver === 'gote' ? '☖' : '☗';
  let prompt = '';
  let tone = '';
  if (mode.noMatch) prompt = t('puzzleNone');
  else if (!puzzle) prompt = mode.puzzles ? '' : t('puzzleLoading');
  else if (puzzle.status === 'solved') { prompt = t('puzzleSolved'); tone = 'good'; }
  else if (puzzle.status === 'failed') { prompt = puzzle.wrong ? t('puzzleWrong') : t('puzzleGaveUp'); tone = 'bad'; }
  else if (puzzle.done > 0 && s.cursor === puzzle.node) { prompt = `${t('puzzleRight')} ${t('puzzleFind')(mark)}`; tone = 'good'; }
  else prompt = t('puzzleFind')(mark);
  if (solving && puzzle.hint) prompt += ` ${puzzle.hint.square ? t('puzzleHintMove') : t('puzzleHintDrop')}`;
  $('puzzle-prompt').textContent = prompt;
  $('puzzle-prompt').dataset.tone = tone;
  $('puzzle-count').textContent = puzzle ? `${puzzle.done} / ${puzzle.total}` : '';
  const line = puzzle && (lang === 'ja' ? puzzle.solution_ja : puzzle.solution_en);
  $('puzzle-line').textContent = line ? `${t('puzzleSolution')}: ${line.join(' ')}` : '';
  $('puzzle-hint').disabled = !solving;
  $('puzzle-solution').disabled = !puzzle;
  $('puzzle-retry').disabled = !puzzle || solving;
  $('puzzle-next').disabled = !mode.puzzles || !chosen().length;
  // No engine while solving: the page does not offer what the session would refuse (the
  // modules that own these buttons set them afresh at every state).
  if (solving) for (const id of ['btn-analysis', 'btn-mate', 'btn-review', 'btn-undo', 'btn-resign']) $(id).disabled = true;
  markHint(solving ? puzzle.hint : null, puzzle ? puzzle.solver : 'sente');
}

// "#p0003 · Mate in 2 · ★★☆☆☆ · Drop", in the language chosen.
function describe(p) {
  const parts = [`#${p.id}`];
  if (p.kind === 'mate' && p.mate) parts.push(themeName(`mateIn${p.mate}`));
  else if (p.kind === 'advantage') parts.push(themeName('advantage'));
  if (p.difficulty) parts.push(stars(Number(p.difficulty)));
  const themes = (p.themes || []).filter((name) => !/^mateIn\d+$/.test(name)).map(themeName);
  if (themes.length) parts.push(themes.join(lang === 'ja' ? '・' : ', '));
  return parts.join(' · ');
}
