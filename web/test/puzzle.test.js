// Puzzle mode on the static site's board: the core in WebAssembly judges puzzles of the page's
// own file (web/page/puzzles/), through the local transport as the page calls it. The puzzles
// are whatever the file holds: the test reads their solutions from it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { localTransport } from '../page/modules/transport-local.js';
import { WASM } from '../test-support/usi.js';

const ENGINE_BASE = new URL('../src/', import.meta.url);
const FILE = JSON.parse(readFileSync(new URL('../page/puzzles/minishogi-puzzles.json', import.meta.url), 'utf8'));

async function open(t) {
  const transport = await localTransport({ engineBase: ENGINE_BASE, wasm: WASM ?? new URL('../dist/minishogi-engine.wasm', import.meta.url) });
  t.after(() => transport.close());
  const events = { state: [], info: [], mate: [] };
  transport.subscribe({
    state: (s) => events.state.push(s),
    info: (i) => events.info.push(i),
    mate: (m) => events.mate.push(m),
  });
  return { transport, events };
}

const fields = (p) => ({ id: p.id, sfen: p.sfen, moves: p.moves });

test('puzzle: the file is in the agreed format', () => {
  assert.equal(FILE.version, 1);
  assert.ok(typeof FILE.generated_by === 'string' && FILE.generated_by.length > 0);
  assert.ok(FILE.puzzles.length >= 1);
  const ids = new Set();
  for (const p of FILE.puzzles) {
    assert.ok(!ids.has(p.id), `unique id ${p.id}`);
    ids.add(p.id);
    assert.equal(p.moves.length % 2, 1, p.id);
    assert.ok(['mate', 'advantage'].includes(p.kind), p.id);
    if (p.kind === 'mate') assert.equal(p.mate, (p.moves.length + 1) / 2, p.id);
    assert.ok(Number.isInteger(p.difficulty) && p.difficulty >= 1 && p.difficulty <= 5, p.id);
    assert.ok(Array.isArray(p.themes) && p.themes.every((th) => /^[a-z][A-Za-z0-9]*$/.test(th)), p.id);
  }
});

test('puzzle: every puzzle of the file is solved by its solution, replies played by the core', async (t) => {
  const { transport, events } = await open(t);
  for (const p of FILE.puzzles) {
    let state = await transport.request('puzzle_start', fields(p));
    assert.equal(state.puzzle.status, 'solving', p.id);
    assert.equal(state.puzzle.solver, p.sfen.split(' ')[1] === 'b' ? 'sente' : 'gote');
    assert.equal(state.puzzle.total, (p.moves.length + 1) / 2);
    for (let i = 0; i < p.moves.length; i += 2) {
      state = await transport.request('move', { move: p.moves[i] });
      if (i + 1 < p.moves.length) {
        assert.equal(state.last_move, p.moves[i + 1], `${p.id}: the reply`);
        assert.equal(state.puzzle.done, i / 2 + 1);
      }
    }
    assert.equal(state.puzzle.status, 'solved', p.id);
    assert.deepEqual(state.puzzle.solution, p.moves);
    if (p.kind === 'mate') assert.equal(state.result.reason, 'checkmate', p.id);
  }
  assert.equal(events.info.length, 0, 'no engine searched');
  assert.ok(events.state.every((s) => !s.thinking));
});

test('puzzle: bad puzzles refused; a hint, a wrong move, the solution', async (t) => {
  const { transport } = await open(t);
  const p = FILE.puzzles.reduce((a, b) => (b.moves.length > a.moves.length ? b : a));
  const before = await transport.request('state');
  for (const bad of [
    { ...fields(p), sfen: 'not a position' },
    { ...fields(p), moves: p.moves.slice(0, 2) },
    { ...fields(p), moves: [p.moves[0], p.moves[0], p.moves[0]] },
  ]) {
    await assert.rejects(transport.request('puzzle_start', bad), (e) => e.status === 400 && e.message.length > 0);
  }
  assert.deepEqual(await transport.request('state'), before, 'the session unchanged');

  let state = await transport.request('puzzle_start', fields(p));
  await assert.rejects(transport.request('analysis', { on: true }), (e) => e.status === 400, 'no analysis while solving');
  state = await transport.request('puzzle_hint');
  const first = p.moves[0];
  assert.deepEqual(state.puzzle.hint, first[1] === '*' ? { drop: first[0] } : { square: first.slice(0, 2) });
  // A wrong move: any other, except one that mates (the core accepts a mate whatever the
  // solution says), which starts the puzzle again to try the next.
  let wrong = null;
  for (const move of state.legal_moves.filter((m) => m !== first)) {
    state = await transport.request('move', { move });
    if (state.puzzle.status === 'failed') { wrong = move; break; }
    assert.equal(state.puzzle.status, 'solved');
    await transport.request('puzzle_start', fields(p));
  }
  assert.ok(wrong, 'a move that fails');
  assert.equal(state.puzzle.wrong, wrong);
  assert.equal(state.ply, 1, 'no reply to a wrong move');
  state = await transport.request('puzzle_solution');
  assert.deepEqual(state.line.map((m) => m.usi), p.moves);
  assert.equal(state.puzzle.solution_en.length, p.moves.length);
  assert.equal(state.cursor, 0, 'where it went wrong');
  // Analysis is allowed once the puzzle is over.
  assert.equal((await transport.request('analysis', { on: true })).analysis.on, true);
  await transport.request('analysis', { on: false });
  state = await transport.request('puzzle_end');
  assert.equal(state.puzzle, null);
});
