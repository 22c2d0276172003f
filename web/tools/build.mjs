// `npm run build`: builds the engine for wasm32 with the repository's scripts/build-wasm.sh
// and copies the .wasm to dist/minishogi-engine.wasm, where engine.js looks for it.
// `--check` only makes sure that file exists (before `npm pack`, which must not ship without it).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(web, '..');
const target = resolve(web, 'dist/minishogi-engine.wasm');

if (process.argv.includes('--check')) {
  if (!existsSync(target)) {
    console.error(`${target} is missing: run npm run build first`);
    process.exit(1);
  }
  process.exit(0);
}

// The script prints the .wasm's path (relative to the repository unless WASM_TARGET_DIR is
// absolute) on stdout; cargo's progress goes to stderr, shown as it comes.
// Its exit status is passed on (3: no wasm32 toolchain, which the cargo test skips on).
let printed;
try {
  printed = execFileSync(resolve(repo, 'scripts/build-wasm.sh'), {
    cwd: repo,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim().split('\n').pop();
} catch (error) {
  process.exit(error.status ?? 1);
}
const built = isAbsolute(printed) ? printed : resolve(repo, printed);
mkdirSync(dirname(target), { recursive: true });
copyFileSync(built, target);
console.log(`${target} (${statSync(target).size} bytes, from ${built})`);
