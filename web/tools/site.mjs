// `cargo make web` / `npm run site`: writes the board as a static site — the same page as
// `engine gui`, with the board's session core and the engine in WebAssembly — to a folder
// (default: target/site of the repository), ready for any static host:
//   index.html, style.css, modules/*.js      the page (web/page/)
//   puzzles/*.json                          the puzzle file of its puzzle mode
//   engine/*.js, engine/minishogi-engine.wasm the engine package (web/src/, the .wasm)
// The .wasm is built first (tools/build.mjs: rustup's wasm32 target or Debian's rustc-web);
// `--no-build` uses the one already in dist/. The folder is written beside its final place
// and renamed into it, so that it is whole or absent.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const out = resolve(args.find((a) => !a.startsWith('--')) ?? resolve(web, '../target/site'));
const wasm = resolve(web, 'dist/minishogi-engine.wasm');

if (!args.includes('--no-build')) {
  try {
    execFileSync(process.execPath, [resolve(web, 'tools/build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (error) {
    process.exit(error.status ?? 1);
  }
}
if (!existsSync(wasm)) {
  console.error(`${wasm} is missing: run without --no-build`);
  process.exit(1);
}

const building = `${out}.building`;
rmSync(building, { recursive: true, force: true });
mkdirSync(join(building, 'modules'), { recursive: true });
mkdirSync(join(building, 'engine'), { recursive: true });

// No server hands this page a token: the page takes the local transport.
const html = readFileSync(resolve(web, 'page/index.html'), 'utf8').replaceAll('{{TOKEN}}', '');
writeFileSync(join(building, 'index.html'), html);
copyFileSync(resolve(web, 'page/style.css'), join(building, 'style.css'));
for (const name of readdirSync(resolve(web, 'page/modules')).filter((n) => n.endsWith('.js'))) {
  copyFileSync(resolve(web, 'page/modules', name), join(building, 'modules', name));
}
// The puzzle file of the page's puzzle mode (fetched from puzzles/ beside the page).
mkdirSync(join(building, 'puzzles'), { recursive: true });
for (const name of readdirSync(resolve(web, 'page/puzzles')).filter((n) => n.endsWith('.json'))) {
  copyFileSync(resolve(web, 'page/puzzles', name), join(building, 'puzzles', name));
}
for (const name of readdirSync(resolve(web, 'src')).filter((n) => n.endsWith('.js'))) {
  copyFileSync(resolve(web, 'src', name), join(building, 'engine', name));
}
copyFileSync(wasm, join(building, 'engine/minishogi-engine.wasm'));
// GitHub Pages: serve the files as they are.
writeFileSync(join(building, '.nojekyll'), '');

rmSync(out, { recursive: true, force: true });
renameSync(building, out);
const size = statSync(join(out, 'engine/minishogi-engine.wasm')).size;
const gzipped = gzipSync(readFileSync(join(out, 'engine/minishogi-engine.wasm')), { level: 9 }).length;
console.log(`${out} (the .wasm ${(size / 1e6).toFixed(2)} MB, ${(gzipped / 1e6).toFixed(2)} MB gzipped)`);
