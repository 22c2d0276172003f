// A static server of web/ for the manual browser tools (browser-smoke.mjs, speed.mjs), on
// 127.0.0.1 only: the files under web/ (nothing outside it), a page of the tool's own at `/`,
// and POST /report, whose body is handed to `onReport`. With `isolated`, the headers that make
// the page cross-origin isolated (SharedArrayBuffer for the engine's line ring).
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };

/** Listens on a free port; resolves to the page's URL and the server. */
export function serve({ isolated, page, onReport }) {
  const headers = isolated
    ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }
    : {};
  const server = createServer(async (request, response) => {
    if (request.method === 'POST') {
      let body = '';
      for await (const chunk of request) body += chunk;
      response.end();
      onReport(body);
      return;
    }
    const path = decodeURIComponent(new URL(request.url, 'http://x').pathname);
    if (path === '/') {
      response.writeHead(200, { ...headers, 'Content-Type': 'text/html' });
      response.end(page);
      return;
    }
    const file = resolve(root, `.${path}`);
    if (!file.startsWith(root.endsWith(sep) ? root : root + sep)) {
      response.writeHead(403, headers);
      response.end();
      return;
    }
    try {
      const body = await readFile(file);
      response.writeHead(200, { ...headers, 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404, headers);
      response.end();
    }
  });
  return new Promise((done) => {
    server.listen(0, '127.0.0.1', () => done({ url: `http://127.0.0.1:${server.address().port}/`, server }));
  });
}
