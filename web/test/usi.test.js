// USI conformance, a subset: the engine in its worker, through the wrapper, with lines
// travelling through shared memory (Node always has it). Expected values come from the
// engine's own answers (its `d` command shows the position and its legal moves), never from
// copies of earlier outputs; only the protocol's fixed words are written here.
import assert from 'node:assert/strict';
import test from 'node:test';
import { display, exchange, infoValues, parseBestmove, ponderhitEndsAPonderSearch, search, sleep, startEngine } from '../test-support/usi.js';

const MATE_SFEN = '4k/5/2G2/5/K4 b G 1';

test('usi: the handshake names the engine, lists options and ends with usiok', async (t) => {
  const { engine } = await startEngine(t);
  assert.equal(engine.sharedMemory, true);
  const { lines } = await exchange(engine, 'usi', 'usiok');
  assert.match(lines[0], /^id name \S/);
  assert.ok(lines.some((line) => line.startsWith('id author ')));
  const options = lines.filter((line) => line.startsWith('option name '));
  assert.ok(options.length > 0, 'no options');
  for (const option of options) assert.match(option, /^option name \S+ type (check|spin|combo|button|string|filename)\b/);
  assert.ok(options.some((line) => line.startsWith('option name USI_Hash ')), 'USI_Hash is a USI option');
  assert.equal(lines.at(-1), 'usiok');
});

test('usi: uci gets the UCI handshake', async (t) => {
  const { engine } = await startEngine(t);
  const { lines } = await exchange(engine, 'uci', 'uciok');
  assert.match(lines[0], /^id name \S/);
  assert.ok(lines.some((line) => line.startsWith('option name Hash ')), 'Hash is the UCI option');
  assert.equal(lines.at(-1), 'uciok');
  assert.ok(!lines.includes('usiok'));
});

test('usi: setoption takes a good value and answers an unknown name and a bad value with an error', async (t) => {
  const { engine } = await startEngine(t);
  await exchange(engine, 'usi', 'usiok');
  const good = await exchange(engine, ['setoption name USI_Hash value 16', 'setoption name MultiPV value 2', 'isready'], 'readyok');
  assert.deepEqual(good.lines.filter((line) => line.startsWith('info string error')), []);
  // The MultiPV value took effect: the search reports two lines.
  const { lines } = await search(engine, 'go depth 3');
  assert.ok(infoValues(lines, 'multipv').includes(2), 'MultiPV 2 had no effect');

  const unknown = await exchange(engine, 'setoption name NoSuchOption value 1', /^info string error: /, 5000);
  assert.match(unknown.last, /NoSuchOption/);
  for (const bad of ['setoption name USI_Hash value abc', 'setoption name USI_Hash value 99999999', 'setoption name MultiPV value 0']) {
    const answer = await exchange(engine, [bad, 'isready'], 'readyok', 5000);
    assert.equal(answer.lines.filter((line) => line.startsWith('info string error: ')).length, 1, `${bad}: ${answer.lines}`);
  }
  // The bad MultiPV value left the good one in place.
  const after = await search(engine, 'go depth 3');
  assert.ok(infoValues(after.lines, 'multipv').includes(2));
});

test('usi: position startpos moves … and position sfen … moves … describe the same positions', async (t) => {
  const { engine } = await startEngine(t);
  engine.send('position startpos');
  const start = await display(engine);
  assert.ok(start.legal.length > 0);
  const [m1] = start.legal;
  engine.send(`position startpos moves ${m1}`);
  const one = await display(engine);
  assert.notEqual(one.sfen, start.sfen, `${m1} changed nothing`);
  assert.notEqual(one.sfen.split(' ')[1], start.sfen.split(' ')[1], 'the side to move did not change');
  const m2 = one.legal.at(-1);
  engine.send(`position startpos moves ${m1} ${m2}`);
  const two = await display(engine);
  const m3 = two.legal[Math.floor(two.legal.length / 2)];
  engine.send(`position startpos moves ${m1} ${m2} ${m3}`);
  const three = await display(engine);
  // The sfen form, from the sfen the engine showed, reaches the same position.
  engine.send(`position sfen ${one.sfen} moves ${m2} ${m3}`);
  assert.equal((await display(engine)).sfen, three.sfen);
  engine.send(`position sfen ${three.sfen}`);
  assert.equal((await display(engine)).sfen, three.sfen);
  // A position with a piece in hand: drops are among its moves.
  engine.send(`position sfen ${MATE_SFEN}`);
  const mate = await display(engine);
  assert.equal(mate.sfen, MATE_SFEN);
  assert.ok(mate.legal.some((move) => move.startsWith('G*')), 'no gold drops');
});

/** Searches `goLine` from a position a few moves in; checks one legal bestmove. */
async function oneLegalBestmove(t, goLine) {
  const { engine } = await startEngine(t);
  await exchange(engine, ['usi'], 'usiok');
  engine.send('position startpos');
  const [m1] = (await display(engine)).legal;
  engine.send(`position startpos moves ${m1}`);
  const { legal } = await display(engine);
  const result = await search(engine, goLine);
  assert.match(result.last, /^bestmove /);
  assert.equal(result.answers, 1, 'exactly one bestmove');
  const { move, ponder } = parseBestmove(result.last);
  assert.ok(legal.includes(move), `${move} is not among the legal moves ${legal}`);
  if (ponder !== undefined) {
    engine.send(`position startpos moves ${m1} ${move}`);
    assert.ok((await display(engine)).legal.includes(ponder), `ponder ${ponder} is not legal after ${move}`);
  }
  return result;
}

test('usi: go movetime searches about that long', async (t) => {
  const { ms } = await oneLegalBestmove(t, 'go movetime 400');
  assert.ok(ms >= 250 && ms < 400 + 1500, `took ${ms} ms`);
});

test('usi: go depth stops at that depth', async (t) => {
  const { lines } = await oneLegalBestmove(t, 'go depth 4');
  const depths = infoValues(lines, 'depth');
  assert.ok(depths.length > 0 && Math.max(...depths) <= 4, `depths ${depths}`);
});

test('usi: go nodes stops at that many nodes', async (t) => {
  const { lines } = await oneLegalBestmove(t, 'go nodes 3000');
  const nodes = infoValues(lines, 'nodes');
  assert.ok(nodes.length > 0 && Math.max(...nodes) <= 3000, `nodes ${nodes}`);
});

test('usi: go btime wtime binc winc plays within the clock', async (t) => {
  const { ms } = await oneLegalBestmove(t, 'go btime 3000 wtime 3000 binc 100 winc 100');
  assert.ok(ms < 3000, `took ${ms} ms of a 3000 ms clock`);
});

test('usi: go byoyomi plays within the byoyomi', async (t) => {
  const { ms } = await oneLegalBestmove(t, 'go btime 0 wtime 0 byoyomi 500');
  assert.ok(ms < 500 + 1000, `took ${ms} ms of a 500 ms byoyomi`);
});

test('usi: stop ends go infinite within a second with one legal bestmove', async (t) => {
  const { engine } = await startEngine(t);
  engine.send('position startpos');
  const { legal } = await display(engine);
  await exchange(engine, 'go infinite', /^info .*\bpv /);
  await sleep(300);
  const { last, ms } = await exchange(engine, 'stop', /^bestmove /, 5000);
  assert.ok(ms < 1000, `bestmove ${ms} ms after stop`);
  assert.ok(legal.includes(parseBestmove(last).move), last);
  const after = await exchange(engine, 'isready', 'readyok');
  assert.ok(!after.lines.some((line) => line.startsWith('bestmove')), 'a second bestmove');
});

test('usi: isready during go infinite is answered while the search goes on', async (t) => {
  const { engine, lines } = await startEngine(t);
  engine.send('position startpos');
  await display(engine);
  await exchange(engine, 'go infinite', /^info /);
  const ready = await exchange(engine, 'isready', 'readyok', 2000);
  assert.ok(ready.ms < 1000, `readyok after ${ready.ms} ms`);
  await sleep(300);
  assert.ok(!lines.some((line) => line.startsWith('bestmove')), 'the search ended without stop');
  await exchange(engine, 'stop', /^bestmove /, 2000);
});

test('usi: illegal moves and garbage get an error and leave the position unchanged', async (t) => {
  // Two fresh engines (the search also depends on the hash table's contents): one searches
  // the position as it is, the other after the bad lines.
  const setUp = async () => {
    const { engine } = await startEngine(t);
    engine.send('position startpos');
    const [m1] = (await display(engine)).legal;
    engine.send(`position startpos moves ${m1}`);
    const [m2] = (await display(engine)).legal;
    engine.send(`position startpos moves ${m1} ${m2}`);
    return { engine, moves: [m1, m2], before: await display(engine) };
  };
  const reference = await setUp();
  const expected = (await search(reference.engine, 'go nodes 4000')).last;

  const { engine, moves, before } = await setUp();
  const bad = [
    `position startpos moves ${moves[0]} 9z9z`, // no such square
    `position startpos moves ${moves[0]} ${moves[0]}`, // the piece has moved: illegal now
    'position sfen not/a/real/sfen/x b - 1',
    'position',
    'no such command',
  ];
  for (const line of bad) {
    const answer = await exchange(engine, [line, 'isready'], 'readyok', 5000);
    assert.ok(answer.lines.some((l) => l.startsWith('info string error: ')), `no error for ${line}`);
    assert.ok(!answer.lines.some((l) => l.startsWith('bestmove')), `${line} started a search`);
    assert.deepEqual(await display(engine), before, `${line} changed the position`);
  }
  assert.equal((await search(engine, 'go nodes 4000')).last, expected);
});

test('usi: a go with a bad parameter gets an error and still one bestmove (after stop at the latest)', async (t) => {
  const { engine } = await startEngine(t);
  engine.send('position startpos');
  const { legal } = await display(engine);
  for (const line of ['go nodes', 'go depth x', 'go sideways']) {
    const error = await exchange(engine, line, /^(info string error: |bestmove )/, 5000);
    assert.match(error.last, /^info string error: /, `${line}: no error`);
    // The engine ignores the bad parameter; what is left may be an infinite search.
    await sleep(100);
    const stopped = error.last.startsWith('bestmove ') ? { lines: [] } : await exchange(engine, 'stop', /^bestmove /, 5000);
    const { lines } = await exchange(engine, 'isready', 'readyok', 5000);
    const answers = [...error.lines, ...stopped.lines, ...lines].filter((l) => l.startsWith('bestmove '));
    assert.equal(answers.length, 1, `${line}: ${answers.length} bestmoves`);
    assert.ok(legal.includes(parseBestmove(answers[0]).move), answers[0]);
  }
});

test('usi: go mate finds the mate, after which the mated side resigns', async (t) => {
  const { engine } = await startEngine(t);
  engine.send(`position sfen ${MATE_SFEN}`);
  const { legal } = await display(engine);
  const { last, answers } = await search(engine, 'go mate 3000');
  assert.equal(answers, 1);
  const mate = last.split(/\s+/).slice(1);
  assert.equal(last.split(/\s+/)[0], 'checkmate');
  assert.ok(mate.length > 0 && !['nomate', 'timeout', 'notimplemented'].includes(mate[0]), last);
  assert.ok(legal.includes(mate[0]), `${mate[0]} is not legal`);
  engine.send(`position sfen ${MATE_SFEN} moves ${mate.join(' ')}`);
  assert.deepEqual((await display(engine)).legal, [], 'the mated side still has moves');
  const mated = await search(engine, 'go nodes 1000');
  assert.equal(mated.last, 'bestmove resign');
  assert.equal(mated.answers, 1);
  // Where there is no mate, go mate says so.
  engine.send('position startpos');
  const none = await search(engine, 'go mate 500');
  assert.match(none.last, /^checkmate (nomate|timeout)$/);
});

test('usi: ponderhit turns go ponder into a timed search', async (t) => {
  const { engine, lines } = await startEngine(t);
  engine.send('position startpos');
  await ponderhitEndsAPonderSearch(engine, lines);
});

test('usi: a wasm that cannot be loaded rejects ready', async () => {
  const { Engine } = await import('../src/engine.js');
  const engine = new Engine({ wasm: new URL('./no-such-file.wasm', import.meta.url) });
  await assert.rejects(engine.ready, /cannot read the wasm/);
  await engine.closed;
});

test('usi: quit ends the session, also during a search', async (t) => {
  const { engine } = await startEngine(t);
  await exchange(engine, 'usi', 'usiok');
  engine.send('quit');
  await withTimeout(engine.closed, 3000, 'quit did not end the session');

  const second = await startEngine(t);
  second.engine.send('position startpos');
  await exchange(second.engine, 'go infinite', /^info /);
  second.engine.send('quit');
  await withTimeout(second.engine.closed, 3000, 'quit during go infinite did not end the session');
});

function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
  ]);
}
