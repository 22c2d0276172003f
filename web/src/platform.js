// What differs between browsers and Node: compiling the .wasm from a URL, path or bytes,
// and starting a worker with one message interface. Nothing else in the package asks which
// of the two it runs in.

export const inNode = typeof process !== 'undefined' && process.versions?.node !== undefined;

/** The .wasm that `npm run build` puts in dist/, found relative to this script. */
export const DEFAULT_WASM_URL = new URL('../dist/minishogi-engine.wasm', import.meta.url);
export const DEFAULT_WORKER_URL = new URL('./worker.js', import.meta.url);

/** Whether lines can travel through shared memory here (see ring.js). */
export function sharedMemoryAvailable() {
  if (typeof SharedArrayBuffer === 'undefined') return false;
  // A page shares memory with a worker only when cross-origin isolated; Node always can.
  return inNode || globalThis.crossOriginIsolated === true;
}

/**
 * Compiles the engine. `source`: a WebAssembly.Module (used as is), bytes (ArrayBuffer or a
 * typed array), a URL, or a string (a URL in browsers; in Node a file path or file: URL).
 */
export async function compileWasm(source = DEFAULT_WASM_URL) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return WebAssembly.compile(source);
  if (inNode) {
    const { readFile } = await import('node:fs/promises');
    const isUrl = source instanceof URL || /^[a-z][a-z0-9+.-]*:\/\//i.test(String(source));
    const url = isUrl ? new URL(source) : null;
    if (url && url.protocol !== 'file:') return compileResponse(await fetch(url));
    let bytes;
    try {
      bytes = await readFile(url ?? String(source));
    } catch (error) {
      throw new Error(`minishogi-engine: cannot read the wasm at ${url ?? source} (run npm run build?): ${error.message}`);
    }
    return WebAssembly.compile(bytes);
  }
  const response = await fetch(new URL(source, globalThis.location?.href));
  if (!response.ok) throw new Error(`minishogi-engine: cannot fetch ${response.url}: HTTP ${response.status}`);
  return compileResponse(response);
}

async function compileResponse(response) {
  // compileStreaming needs the application/wasm MIME type, which not every server sends.
  if (WebAssembly.compileStreaming && response.headers.get('content-type')?.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

/**
 * Starts the worker script at `url`; `handlers`: onMessage(data), onError(Error) — called
 * when the worker could not start or died. Returns {post(message), terminate()}.
 */
export async function startWorker(url, handlers) {
  if (inNode) {
    const { Worker } = await import('node:worker_threads');
    const worker = new Worker(url);
    worker.on('message', handlers.onMessage);
    worker.on('error', handlers.onError);
    worker.on('exit', (code) => {
      if (code !== 0) handlers.onError(new Error(`worker exited with code ${code}`));
    });
    return { post: (m) => worker.postMessage(m), terminate: () => void worker.terminate() };
  }
  const worker = new Worker(url, { type: 'module' });
  worker.onmessage = (event) => handlers.onMessage(event.data);
  worker.onerror = (event) => {
    event.preventDefault?.();
    handlers.onError(new Error(event.message || 'the worker failed to load'));
  };
  return { post: (m) => worker.postMessage(m), terminate: () => worker.terminate() };
}
