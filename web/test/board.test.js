// The static page's session: the board's core as WebAssembly on this thread and the engine in
// workers, driven through the page's local transport exactly as the page drives it. Moves,
// results, notation and probabilities are the core's; the test checks that they arrive and
// that they agree with the rules (legal moves from the state, the record read back).
import assert from 'node:assert/strict';
import test from 'node:test';
import { localTransport } from '../page/modules/transport-local.js';
import { WASM } from '../test-support/usi.js';

const ENGINE_BASE = new URL('../src/', import.meta.url);

/** A transport with its events kept; closed when the test ends. */
async function open(t) {
  const transport = await localTransport({ engineBase: ENGINE_BASE, wasm: WASM ?? new URL('../dist/minishogi-engine.wasm', import.meta.url) });
  t.after(() => transport.close());
  const events = { state: [], info: [], mate: [] };
  const waiters = [];
  const handler = (name) => (data) => {
    events[name].push(data);
    for (const waiter of [...waiters]) {
      if (waiter.name === name && waiter.done(data)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(data);
      }
    }
  };
  transport.subscribe({ state: handler('state'), info: handler('info'), mate: handler('mate') });
  const until = (name, done, timeoutMs = 20000) =>
    new Promise((resolve, reject) => {
      const found = events[name].find(done);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`no ${name} event in ${timeoutMs} ms`)), timeoutMs);
      waiters.push({ name, done, resolve: (d) => { clearTimeout(timer); resolve(d); } });
    });
  return { transport, events, until };
}

test('board: a game against the engine in its worker, move by move', async (t) => {
  const { transport, events, until } = await open(t);
  assert.equal(events.state[0].ply, 0, 'the state comes first');
  let state = await transport.request('new', { sente: 'human', gote: 'engine', level: 20, movetime_ms: 100 });
  assert.equal(state.players.gote, 'engine');
  for (let ply = 0; ply < 6; ply += 2) {
    assert.equal(state.side_to_move, 'sente');
    const move = state.legal_moves[0];
    state = await transport.request('move', { move });
    assert.equal(state.ply, ply + 1);
    if (!state.result) {
      assert.ok(state.thinking, 'the engine thinks');
      // Not now: the engine is to move.
      await assert.rejects(transport.request('move', { move: state.legal_moves[0] }), (e) => e.status === 409);
      state = await until('state', (s) => s.ply === ply + 2 || s.result !== null);
    }
    if (state.result) break;
    assert.equal(state.line.length, ply + 2);
    const reply = state.line.at(-1);
    assert.match(reply.ja, /^☖/, 'the engine move in Japanese');
    assert.ok(reply.en.length >= 4, reply.en);
  }
  assert.ok(events.info.some((i) => i.source === 'opponent' && typeof i.win === 'number'), 'the engine reported');
  // A bad move is refused, with the game unchanged.
  const before = (await transport.request('state')).ply;
  await assert.rejects(transport.request('move', { move: 'zz' }), (e) => e.status === 400 && e.message.length > 0);
  assert.equal((await transport.request('state')).ply, before);
});

test('board: analysis with two lines follows the cursor and stops; a mate is found', async (t) => {
  const { transport, events, until } = await open(t);
  await transport.request('new', { sente: 'human', gote: 'human' });
  await transport.request('move', { move: '2e3d' });
  let state = await transport.request('analysis', { on: true, multipv: 2 });
  assert.equal(state.analysis.on, true);
  const second = await until('info', (i) => i.source === 'analysis' && i.node === state.cursor && i.multipv === 2 && i.pv.length > 0);
  assert.equal(second.pv_ja.length, second.pv.length);
  state = await transport.request('goto', { node: 0 });
  await until('info', (i) => i.source === 'analysis' && i.node === 0 && i.depth >= 3);
  // Evaluations are kept by the core and arrive with the next state.
  state = await transport.request('state');
  assert.ok(state.evals[0] !== null, 'the start was evaluated');
  assert.ok(state.evals[0].win > 0 && state.evals[0].win < 1);
  state = await transport.request('analysis', { on: false });
  assert.equal(state.analysis.on, false);
  // The stopped search's last reports may still come; then nothing.
  await new Promise((r) => setTimeout(r, 300));
  const seen = events.info.length;
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(events.info.length, seen, 'analysis stopped');

  await transport.request('new', { sente: 'human', gote: 'human', sfen: '4k/5/2G2/5/K4 b G 1' });
  await transport.request('mate', { movetime_ms: 2000 });
  const mate = await until('mate', () => true);
  assert.equal(mate.result, 'mate');
  assert.ok(mate.pv.length >= 1 && mate.pv_en.length === mate.pv.length);
  const view = await transport.preview(0, mate.pv);
  assert.equal(view.last_move, mate.pv.at(-1));
});

test('board: records go out in every format and come back in; bad ones are refused', async (t) => {
  const { transport } = await open(t);
  await transport.request('new', { sente: 'human', gote: 'human' });
  for (const move of ['2e3d', '4a3b', '3d2e']) await transport.request('move', { move });
  for (const format of ['kif', 'kifu', 'csa', 'usi']) {
    const file = await transport.saveRecord(format);
    assert.equal(file.filename, `game.${format}`);
    assert.ok(file.bytes.length > 10);
    await transport.request('new', { sente: 'human', gote: 'human' });
    const state = await transport.loadRecord(file.bytes, format);
    assert.deepEqual(state.line.map((m) => m.usi), ['2e3d', '4a3b', '3d2e'], format);
  }
  await assert.rejects(transport.loadRecord(new TextEncoder().encode('not a record'), 'csa'), (e) => e.status === 400);
  await assert.rejects(transport.request('goto', { node: 99 }), (e) => e.status === 400);
  assert.equal((await transport.request('state')).ply, 3, 'the game is unchanged');
});

test('board: the clocks run in the page: the engine moves on its clock, a flag falls', async (t) => {
  const { transport, until } = await open(t);
  const state = await transport.request('new', {
    sente: 'engine', gote: 'human', clock: { main_ms: 1500, byoyomi_ms: 0, increment_ms: 0 },
  });
  assert.equal(state.clock.running, 'sente');
  const moved = await until('state', (s) => s.ply === 1);
  assert.equal(moved.clock.running, 'gote', "gote's clock runs after the engine's move");
  assert.ok(moved.clock.sente_ms < 1500 && moved.clock.sente_ms > 0, `sente used some time: ${moved.clock.sente_ms}`);
  // Gote (the person) does not move: the page's tick lets the flag fall.
  const over = await until('state', (s) => s.result !== null, 10000);
  assert.deepEqual([over.result.winner, over.result.reason], ['sente', 'time']);
  assert.equal(over.ply, 1);
});

test('board: a review in the page: every position searched by the worker, every move judged', async (t) => {
  const { transport, until } = await open(t);
  await transport.request('new', { sente: 'human', gote: 'human' });
  for (const move of ['2e3d', '4a3b', '3d2e']) await transport.request('move', { move });
  const started = await transport.request('review', { nodes: 2000 });
  assert.equal(started.review.total, 4);
  const done = await until('state', (s) => s.review && s.review.done, 30000);
  assert.equal(done.review.moves.length, 3);
  assert.deepEqual(done.review.moves.map((m) => m.mover), ['sente', 'gote', 'sente']);
  for (const m of done.review.moves) assert.ok(m.loss >= 0 && typeof m.best_ja === 'string');
  assert.ok(done.review.accuracy.sente >= 0 && done.review.accuracy.gote <= 100);
  await assert.rejects(transport.request('review', { nodes: 5 }), (e) => e.status === 400);
});

test('board: the position editor: what was set up is checked by the core and played from', async (t) => {
  const { transport } = await open(t);
  const empty = () => Array.from({ length: 5 }, () => Array(5).fill(''));
  const board = empty();
  board[4][0] = 'K';   // 5e
  board[0][4] = 'k';   // 1a
  board[2][2] = '+R';  // 3c: a dragon
  const position = { board, hands: { sente: { G: 2 }, gote: { P: 1 } }, side_to_move: 'gote' };
  const checked = await transport.setup(position);
  assert.equal(checked.problem, null);
  assert.match(checked.sfen, / w /, 'gote to move');
  assert.deepEqual(checked.view.board, board, 'the position as the rules read it');
  assert.equal(checked.view.hands.sente.G, 2);
  // Each thing the rules refuse is named, with what the page needs to say it.
  const refused = async (change) => {
    const b = board.map((row) => row.slice());
    const p = { ...position, board: b, hands: { sente: { G: 2 }, gote: { P: 1 } } };
    change(b, p);
    const answer = await transport.setup(p);
    assert.equal(answer.sfen, null);
    return answer.problem;
  };
  let problem = await refused((b) => { b[0][4] = ''; });
  assert.deepEqual([problem.code, problem.side, problem.count], ['king_count', 'gote', 0]);
  problem = await refused((b) => { b[3][3] = 'K'; });
  assert.deepEqual([problem.code, problem.side, problem.count], ['king_count', 'sente', 2]);
  problem = await refused((b) => { b[4][2] = 'p'; });
  assert.deepEqual([problem.code, problem.side, problem.file], ['pawn_last_rank', 'gote', 3]);
  problem = await refused((b, p) => { b[1][0] = 'P'; b[2][0] = 'P'; p.hands.gote.P = 0; });
  assert.deepEqual([problem.code, problem.side, problem.file], ['two_pawns', 'sente', 5]);
  problem = await refused((b, p) => { b[4][2] = ''; b[4][4] = 'G'; p.hands.gote.G = 1; });
  assert.deepEqual([problem.code, problem.kind, problem.count], ['too_many', 'G', 4]);
  problem = await refused((b, p) => { b[4][4] = 'R'; p.side_to_move = 'sente'; });
  assert.deepEqual([problem.code, problem.side], ['not_to_move_in_check', 'gote']);
  assert.ok(problem.text.length > 0, 'the rules\' words too');
  // Malformed data is a refusal, not a verdict.
  await assert.rejects(transport.setup({ board: [['K']], side_to_move: 'sente' }), (e) => e.status === 400);
  await assert.rejects(transport.setup({ ...position, board: position.board.map((r, i) => (i ? r : ['+G', '', '', '', 'k'])) }), (e) => e.status === 400);
  // The usual start, from the rules.
  const start = await transport.setup({ start: true });
  assert.equal(start.sfen, (await transport.request('new', { sente: 'human', gote: 'human' })).sfen);
  // Played from: the new-game path.
  const state = await transport.request('new', { sfen: checked.sfen, sente: 'human', gote: 'human' });
  assert.equal(state.sfen, checked.sfen);
  assert.equal(state.side_to_move, 'gote');
  assert.equal(state.board[2][2], '+R');
});

test('board: a planted blunder reviewed on the static site: marked, with the better move', async (t) => {
  const { transport, until } = await open(t);
  // Sente's third move puts its rook where gote's pawn takes it for nothing.
  const record = 'position startpos moves 4e4d 3a4b 1e1c 1b1c 2e3d\n';
  const loaded = await transport.loadRecord(new TextEncoder().encode(record), 'usi');
  assert.equal(loaded.line.length, 5);
  const started = await transport.request('review', {});
  assert.equal(started.review.total, 6, 'the start and one position a move');
  const done = await until('state', (s) => s.review && s.review.done, 60000);
  const planted = done.review.moves[2];
  assert.equal(planted.node, loaded.line[2].node);
  assert.equal(planted.mover, 'sente');
  assert.ok(['blunder', 'allowed_mate'].includes(planted.mark), JSON.stringify(planted));
  assert.ok(planted.loss >= 15, `${planted.loss} points lost`);
  assert.notEqual(planted.best, '1e1c');
  assert.match(planted.best_ja, /^☗/);
  assert.ok(planted.best_en.length >= 4);
  assert.ok(done.review.accuracy.sente < done.review.accuracy.gote, JSON.stringify(done.review.accuracy));
  // The better move is legal where the blunder was played.
  const before = await transport.preview(loaded.line[1].node, [planted.best]);
  assert.equal(before.last_move, planted.best);
});
