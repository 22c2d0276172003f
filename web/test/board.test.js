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
