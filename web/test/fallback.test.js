// Message mode, as on a page that is not cross-origin isolated (no SharedArrayBuffer): the
// engine cannot hear lines during a search, and the wrapper stands in for it (engine.js).
import assert from 'node:assert/strict';
import test from 'node:test';
import { display, exchange, infoValues, parseBestmove, ponderhitEndsAPonderSearch, search, sleep, startEngine } from '../test-support/usi.js';

const noSab = { sharedMemory: false };

/** A non-initial position reached from the engine's own legal moves. */
async function positionLine(engine) {
  engine.send('position startpos');
  const [m1] = (await display(engine)).legal;
  engine.send(`position startpos moves ${m1}`);
  const m2 = (await display(engine)).legal.at(-1);
  return `position startpos moves ${m1} ${m2}`;
}

test('fallback: stop during go infinite answers with the last pv move and keeps the state', async (t) => {
  const { engine, lines } = await startEngine(t, noSab);
  assert.equal(engine.sharedMemory, false);
  await exchange(engine, ['usi', 'setoption name MultiPV value 2'], 'usiok');
  const position = await positionLine(engine);
  engine.send(position);
  const before = await display(engine);

  await exchange(engine, 'go infinite', /^info .*\bmultipv 1\b.*\bpv /);
  await sleep(300);
  const seen = lines.length;
  const { last, ms } = await exchange(engine, 'stop', /^bestmove /, 3000);
  assert.ok(ms < 1000, `bestmove ${ms} ms after stop`);
  // The wrapper's answer: the first move of the last principal variation (multipv 1).
  const lastPv = lines
    .slice(0, seen)
    .filter((line) => /^info .*\bmultipv 1\b.*\bpv /.test(line))
    .at(-1)
    .split(/\s+/);
  assert.equal(parseBestmove(last).move, lastPv[lastPv.indexOf('pv') + 1]);
  assert.ok(before.legal.includes(parseBestmove(last).move));

  // A fresh worker, in the same state: the position, and the options (MultiPV 2), with the
  // replies to the replayed setup kept from the user.
  const after = await display(engine);
  assert.deepEqual(after, before);
  const next = await search(engine, 'go nodes 2000');
  assert.equal(next.answers, 1);
  assert.ok(before.legal.includes(parseBestmove(next.last).move));
  assert.ok(infoValues(next.lines, 'multipv').includes(2), 'MultiPV was not replayed');
  assert.equal(lines.filter((line) => line === 'usiok').length, 1, 'the replayed usi was answered to the user');
});

test('fallback: isready during a search is answered; lines sent meanwhile reach the engine in order', async (t) => {
  const { engine, lines } = await startEngine(t, noSab);
  engine.send('position startpos');
  const [m1] = (await display(engine)).legal;
  await exchange(engine, 'go infinite', /^info /);
  const ready = await exchange(engine, 'isready', 'readyok', 1000);
  assert.ok(ready.ms < 500, `readyok after ${ready.ms} ms`);
  engine.send(`position startpos moves ${m1}`); // held until the search is over
  await sleep(200);
  assert.ok(!lines.some((line) => line.startsWith('bestmove')), 'the search ended without stop');
  await exchange(engine, 'stop', /^bestmove /, 1000);
  engine.send(`position startpos moves ${m1}`);
  const expected = await display(engine);
  engine.send('position startpos');
  await display(engine);
  // Sent during a search, the position line still comes before the d after it.
  await exchange(engine, 'go infinite', /^info /);
  engine.send(`position startpos moves ${m1}`);
  await exchange(engine, 'stop', /^bestmove /, 1000);
  assert.deepEqual(await display(engine), expected);
});

test('fallback: timed searches end by themselves, and go mate works', async (t) => {
  const { engine } = await startEngine(t, noSab);
  engine.send('position startpos');
  const { legal } = await display(engine);
  const timed = await search(engine, 'go btime 0 wtime 0 byoyomi 300');
  assert.ok(timed.ms < 1500, `took ${timed.ms} ms`);
  assert.equal(timed.answers, 1);
  assert.ok(legal.includes(parseBestmove(timed.last).move));
  engine.send('position sfen 4k/5/2G2/5/K4 b G 1');
  const mate = await search(engine, 'go mate 3000');
  assert.match(mate.last, /^checkmate [^\s]+/);
  assert.doesNotMatch(mate.last, /^checkmate (nomate|timeout|notimplemented)$/);
});

test('fallback: ponderhit turns the ponder search into a timed one', async (t) => {
  const { engine, lines } = await startEngine(t, noSab);
  const position = await positionLine(engine);
  engine.send(position);
  await ponderhitEndsAPonderSearch(engine, lines);
});

test('fallback: quit during a search ends the session', async (t) => {
  const { engine } = await startEngine(t, noSab);
  engine.send('position startpos');
  await exchange(engine, 'go infinite', /^info /);
  engine.send('quit');
  let timer;
  await Promise.race([
    engine.closed.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('not closed')), 2000))),
  ]);
});
