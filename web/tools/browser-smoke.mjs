// A manual check in a real browser: serves web/ on localhost (with the cross-origin-isolation
// headers, and without them on a second port), opens a page in headless Chromium that runs
// the engine in both modes, and prints what the page reports. Not part of `npm test` (it needs
// a browser): node tools/browser-smoke.mjs [path-to-chromium]
import { spawn } from 'node:child_process';
import { serve } from './static-server.mjs';

const chromium = process.argv[2] ?? 'chromium';

const page = `<!doctype html><script type="module">
import { Engine } from '/src/engine.js';
const report = (data) => fetch('/report', { method: 'POST', body: JSON.stringify(data) });
try {
  const engine = new Engine();
  await engine.ready;
  const result = { crossOriginIsolated, sharedMemory: engine.sharedMemory };
  engine.send('usi');
  result.id = await engine.waitFor('id name', 5000);
  await engine.waitFor('usiok', 5000);
  engine.send('position startpos');
  engine.send('go infinite');
  await engine.waitFor(/^info .* pv /, 5000);
  await new Promise((r) => setTimeout(r, 300));
  engine.send('isready');
  result.readyok = await engine.waitFor('readyok', 2000);
  const t = performance.now();
  engine.send('stop');
  result.stopped = await engine.waitFor('bestmove', 3000);
  result.stopMs = Math.round(performance.now() - t);
  engine.send('go nodes 2000');
  result.next = await engine.waitFor('bestmove', 10000);
  engine.send('bench');
  result.bench = await engine.waitFor(/^Bench: /, 60000);
  engine.terminate();
  report(result);
} catch (error) {
  report({ error: String(error) });
}
</script>`;

const pending = new Set([true, false]);
const browsers = [];
function done(isolated) {
  pending.delete(isolated);
  if (pending.size === 0) {
    for (const browser of browsers) browser.kill();
    process.exit(0);
  }
}
setTimeout(() => {
  console.log('timed out');
  for (const browser of browsers) browser.kill();
  process.exit(1);
}, 120000);

for (const isolated of [true, false]) {
  const { url } = await serve({
    isolated,
    page,
    onReport: (body) => {
      console.log(`${isolated ? 'isolated' : 'not isolated'}: ${body}`);
      done(isolated);
    },
  });
  browsers.push(spawn(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', `--user-data-dir=/tmp/browser-smoke-${isolated}`, url], { stdio: 'ignore' }));
}
