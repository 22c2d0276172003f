// Helpers for the tests: an engine whose every line is logged, and USI exchanges on it.
// (Outside test/, so that `node --test` does not run it as a test file.)
import assert from 'node:assert/strict';
import { Engine } from '../src/engine.js';

/** The .wasm under test: $MINISHOGI_WASM, else the package's dist/ (npm run build). */
export const WASM = process.env.MINISHOGI_WASM;

/** A ready engine, terminated when the test `t` ends. `lines`: everything it has written. */
export async function startEngine(t, options = {}) {
  const engine = new Engine({ wasm: WASM, ...options });
  t.after(() => engine.terminate());
  const lines = [];
  engine.onLine = (line) => lines.push(line);
  await engine.ready;
  return { engine, lines };
}

/**
 * Sends `send` (a line or lines) and returns the lines written from then on up to and
 * including the first that matches `until` (see Engine.waitFor), with the time it took.
 */
export async function exchange(engine, send, until, timeoutMs = 10000) {
  const got = [];
  const listen = (async () => {
    for await (const line of engine) {
      got.push(line);
      if (matches(until, line)) return;
    }
  })();
  const start = performance.now();
  for (const line of [send].flat()) engine.send(line);
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no line matching ${until} within ${timeoutMs} ms after ${JSON.stringify(send)}; got:\n${got.join('\n')}`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([listen, timeout]);
  } finally {
    clearTimeout(timer);
  }
  return { lines: got, last: got.at(-1), ms: performance.now() - start };
}

function matches(until, line) {
  if (typeof until === 'function') return until(line);
  if (until instanceof RegExp) return until.test(line);
  return line === until || line.startsWith(`${until} `);
}

/** The engine's own view of its position (its `d` command): {sfen, legal: [moves]}. */
export async function display(engine) {
  const { lines } = await exchange(engine, 'd', /^legal moves/);
  const sfen = lines.find((line) => line.startsWith('sfen: '))?.slice(6);
  const legal = lines.at(-1).replace(/^legal moves \(\d+\):/, '').trim().split(/\s+/).filter(Boolean);
  return { sfen, legal };
}

/** The moves of a `bestmove` line: {move, ponder}. */
export function parseBestmove(line) {
  const words = line.split(/\s+/);
  return { move: words[1], ponder: words[2] === 'ponder' ? words[3] : undefined };
}

/**
 * Runs `goLine` to its end; returns the bestmove line, the lines before it, the time, and
 * how many bestmove lines there were up to a `readyok` asked for after it (exactly one).
 */
export async function search(engine, goLine, timeoutMs = 20000) {
  const result = await exchange(engine, goLine, /^(bestmove|checkmate) /, timeoutMs);
  const after = await exchange(engine, 'isready', 'readyok', 5000);
  const answers = [...result.lines, ...after.lines].filter((line) => /^(bestmove|checkmate) /.test(line));
  return { ...result, answers: answers.length };
}

/** The numbers that `info` lines report for `field` (depth, nodes, …). */
export function infoValues(lines, field) {
  return lines
    .filter((line) => line.startsWith('info '))
    .map((line) => line.split(/\s+/))
    .filter((words) => words.includes(field))
    .map((words) => Number(words[words.indexOf(field) + 1]));
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `go ponder` on the engine's position waits (no bestmove of its own within 0.5 s), and
 * `ponderhit` turns it into a timed search that answers soon with a legal move: the same check
 * over either transport. `lines`: everything the engine has written.
 */
export async function ponderhitEndsAPonderSearch(engine, lines) {
  const { legal } = await display(engine);
  await exchange(engine, 'go ponder btime 0 wtime 0 byoyomi 300', /^info /);
  await sleep(500);
  assert.ok(!lines.some((line) => line.startsWith('bestmove')), 'the ponder search ended by itself');
  const { last, ms } = await exchange(engine, 'ponderhit', /^bestmove /, 3000);
  assert.ok(ms < 1500, `bestmove ${ms} ms after ponderhit`);
  assert.ok(legal.includes(parseBestmove(last).move), last);
}
