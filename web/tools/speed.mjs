// The wasm engine's speed beside the native engine's, in one run on one machine: `bench`
// (30 positions, depth 9, one thread) by the native binary, by the wasm module under Node and
// by the wasm module in headless Chromium (a cross-origin-isolated page), `rounds` times each,
// alternating. Prints each run's nodes and nodes/s and the medians' ratios, and how long the
// page took from its start to an engine that answers `isready`.
//   node tools/speed.mjs [rounds] [native binary] [chromium]
import { spawn, spawnSync } from 'node:child_process';
import { Engine } from '../src/engine.js';
import { serve } from './static-server.mjs';

const rounds = Number(process.argv[2] ?? 3);
const native = process.argv[3] ?? process.env.NATIVE_ENGINE ?? new URL('../../target/release/minishogi-engine', import.meta.url).pathname;
const chromium = process.argv[4] ?? 'chromium';

const parse = (line) => {
  const match = /^Bench: (\d+) nodes (\d+) nps/.exec(line ?? '');
  if (!match) throw new Error(`not a Bench line: ${line}`);
  return { nodes: Number(match[1]), nps: Number(match[2]) };
};

function benchNative() {
  const run = spawnSync(native, ['bench'], { encoding: 'utf8' });
  return parse(run.stdout.split('\n').find((line) => line.startsWith('Bench: ')));
}

async function benchNode() {
  const engine = new Engine();
  await engine.ready;
  engine.send('bench');
  const line = await engine.waitFor(/^Bench: /, 120000);
  engine.terminate();
  return parse(line);
}

const page = `<!doctype html><script type="module">
import { Engine } from '/src/engine.js';
const engine = new Engine();
await engine.ready;
engine.send('usi');
await engine.waitFor('usiok', 10000);
engine.send('isready');
await engine.waitFor('readyok', 10000);
// Milliseconds from the page's navigation to an engine that answers: what a player waits.
const readyMs = Math.round(performance.now());
engine.send('bench');
const line = await engine.waitFor(/^Bench: /, 120000);
await fetch('/report', { method: 'POST', body: JSON.stringify({ line, readyMs }) });
</script>`;

async function benchChromium() {
  let report;
  const reported = new Promise((done) => (report = done));
  const { url, server } = await serve({ isolated: true, page, onReport: report });
  const browser = spawn(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--user-data-dir=/tmp/wasm-speed-chromium', url], { stdio: 'ignore' });
  try {
    const { line, readyMs } = JSON.parse(await reported);
    return { ...parse(line), readyMs };
  } finally {
    browser.kill();
    server.close();
  }
}

const runs = { native: [], node: [], chromium: [] };
for (let round = 1; round <= rounds; round++) {
  for (const [name, bench] of [['native', benchNative], ['node', benchNode], ['chromium', benchChromium]]) {
    const result = await bench();
    runs[name].push(result);
    const ready = result.readyMs === undefined ? '' : ` (engine ready ${result.readyMs} ms after the page's start)`;
    console.log(`round ${round} ${name.padEnd(8)} ${result.nodes} nodes ${result.nps} nps${ready}`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const nps = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, median(list.map((r) => r.nps))]));
for (const name of ['node', 'chromium']) {
  console.log(`${name}: median ${nps[name]} nps, ${(100 * nps[name] / nps.native).toFixed(1)}% of native's ${nps.native}`);
}
process.exit(0);
