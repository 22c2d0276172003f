// At fixed nodes, the wasm engine chooses the native engine's moves, with the same score and
// the same count of nodes, on the 30 bench positions (crates/minishogi-engine/src/
// bench-positions.txt): the same search, compiled twice. The native binary: $NATIVE_ENGINE,
// else the repository's target/release/minishogi-engine; without one the test is skipped.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { exchange, startEngine } from '../test-support/usi.js';

const native = process.env.NATIVE_ENGINE ?? fileURLToPath(new URL('../../target/release/minishogi-engine', import.meta.url));
const skip = existsSync(native)
  ? false
  : `no native engine at ${native} (build it with cargo build --release, or set NATIVE_ENGINE)`;

const positions = readFileSync(new URL('../../crates/minishogi-engine/src/bench-positions.txt', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

const NODES = 20000;
const SETUP = ['usi', 'setoption name USI_Hash value 16', 'setoption name Threads value 1'];

/** The native engine over pipes: send lines, read up to a line that matches. */
function startNative(t) {
  const child = spawn(native, [], { stdio: ['pipe', 'pipe', 'ignore'] });
  t.after(() => child.kill());
  const waiting = [];
  const buffered = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    buffered.push(line);
    while (waiting.length && buffered.length) waiting.shift()(buffered.shift());
  });
  const next = () => new Promise((resolve) => (buffered.length ? resolve(buffered.shift()) : waiting.push(resolve)));
  return {
    async exchange(lines, until) {
      for (const line of [lines].flat()) child.stdin.write(`${line}\n`);
      const got = [];
      for (;;) {
        const line = await next();
        got.push(line);
        if (until.test(line)) return got;
      }
    },
  };
}

/** What a search settled on: the bestmove line and its last `info … score … nodes`. */
function outcome(lines) {
  const info = lines.filter((line) => line.startsWith('info depth')).at(-1) ?? '';
  const field = (name) => new RegExp(`\\b${name} (\\S+( \\S+)?)`).exec(info)?.[1];
  return { bestmove: lines.at(-1), score: field('score'), nodes: /\bnodes (\d+)/.exec(info)?.[1] };
}

test(`same search: the native engine's moves at ${NODES} nodes on the ${positions.length} bench positions`, { skip, timeout: 300000 }, async (t) => {
  assert.equal(positions.length, 30);
  const nat = startNative(t);
  const { engine } = await startEngine(t);
  await nat.exchange([...SETUP, 'isready'], /^readyok$/);
  await exchange(engine, [...SETUP, 'isready'], 'readyok');
  const differ = [];
  for (const sfen of positions) {
    const lines = ['usinewgame', `position sfen ${sfen}`, `go nodes ${NODES}`];
    const a = outcome(await nat.exchange(lines, /^bestmove /));
    const b = outcome((await exchange(engine, lines, /^bestmove /, 60000)).lines);
    if (JSON.stringify(a) !== JSON.stringify(b)) differ.push({ sfen, native: a, wasm: b });
  }
  assert.deepEqual(differ, [], 'positions where the searches differ');
});
