// The engine's `bench` under wasm searches exactly the nodes the native binary searches:
// the same search, compiled twice. The native binary: $NATIVE_ENGINE, else the repository's
// target/release/minishogi-engine; without one the test is skipped (and says why).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { exchange, startEngine } from '../test-support/usi.js';

const native = process.env.NATIVE_ENGINE ?? fileURLToPath(new URL('../../target/release/minishogi-engine', import.meta.url));
const skip = existsSync(native)
  ? false
  : `no native engine at ${native} (build it with cargo build --release, or set NATIVE_ENGINE)`;

const benchNodes = (text) => {
  const match = /^Bench: (\d+) nodes\b/m.exec(text);
  return match ? Number(match[1]) : null;
};

test('bench: wasm searches as many nodes as the native engine', { skip, timeout: 120000 }, async (t) => {
  const run = spawnSync(native, ['bench'], { encoding: 'utf8', timeout: 60000 });
  assert.equal(run.status, 0, `native bench failed: ${run.stderr}`);
  const expected = benchNodes(run.stdout);
  assert.ok(expected > 0, `no Bench line in the native output:\n${run.stdout}`);

  const { engine } = await startEngine(t);
  const { last } = await exchange(engine, 'bench', /^Bench: /, 60000);
  assert.equal(benchNodes(last), expected, last);
});
