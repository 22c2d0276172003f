// The worker that runs the engine: it instantiates the compiled WebAssembly module it is
// sent, hands each line it receives to the engine's `usi_handle`, and posts each line the
// engine writes back as a message. Runs as a module worker in browsers and as a
// worker_threads worker in Node.
//
// Messages in:
//   {type: 'init', module: WebAssembly.Module, ring?: SharedArrayBuffer}  (first, once)
//   {type: 'wake'}          lines wait in the ring: read them (shared-memory mode)
//   {type: 'line', line}    one line (message mode, when there is no ring)
// Messages out:
//   {type: 'ready'}         the engine is instantiated
//   {type: 'line', line}    a line the engine wrote, without its newline
//   {type: 'exit'}          the engine ended its session (`quit`)
//   {type: 'error', message}  instantiation failed or the engine trapped; this worker is done
//
// A `go` keeps the worker busy inside `usi_handle` until the search ends, so messages wait.
// That is why lines travel through the ring when shared memory exists: the engine's `poll`
// reads it during the search and so hears `stop`, `ponderhit`, `isready` and `quit`.
// Without a ring `poll` has nothing to read, and the wrapper (engine.js) handles those.

import { RingReader } from './ring.js';

// In browsers the listener is added without an intervening await: messages that reach a
// module worker before its listener exists could be lost. Node queues them on parentPort.
const inBrowser = typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope;
const port = inBrowser ? browserPort() : await nodePort();

let engine = null; // {exports, memory} once instantiated
let ring = null; // RingReader in shared-memory mode
let early = []; // messages that arrived while the module was being instantiated
let done = false; // the session ended or the engine trapped: ignore everything after

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let partial = ''; // written output not yet ended by a newline

port.onMessage(async (message) => {
  if (done) return;
  if (message.type === 'init') {
    try {
      await instantiate(message.module);
    } catch (error) {
      fail(`cannot instantiate the engine: ${error?.message ?? error}`);
      return;
    }
    ring = message.ring ? new RingReader(message.ring) : null;
    port.post({ type: 'ready' });
    const waiting = early;
    early = null;
    for (const m of waiting) receive(m);
    if (ring) drainRing(); // lines written before the worker was up
    return;
  }
  if (early) early.push(message);
  else receive(message);
});

function receive(message) {
  if (done) return;
  if (message.type === 'wake') drainRing();
  else if (message.type === 'line') handle(encoder.encode(message.line));
}

/** Handles every line in the ring, including those that arrive while earlier ones run. */
function drainRing() {
  if (!ring) return;
  let bytes;
  while (!done && (bytes = ring.read()) !== null) handle(bytes);
}

/** Gives one line to the engine; a `go` returns only when its search has ended. */
function handle(bytes) {
  if (done) return;
  try {
    const { exports } = engine;
    const ptr = exports.usi_buffer(bytes.length);
    // Re-read memory.buffer after every call: the memory may have grown.
    new Uint8Array(engine.memory.buffer, ptr, bytes.length).set(bytes);
    if (exports.usi_handle(bytes.length) === 0) {
      done = true;
      flushPartial();
      port.post({ type: 'exit' });
    }
  } catch (error) {
    // A trap (the engine panicked: panics abort on wasm) leaves the instance unusable.
    flushPartial();
    fail(`engine trapped: ${error?.message ?? error}`);
  }
}

function fail(message) {
  done = true;
  port.post({ type: 'error', message });
}

async function instantiate(module) {
  let memory = null;
  const view = (ptr, len) => new Uint8Array(memory.buffer, ptr, len);
  const imports = {
    minishogi: {
      write(ptr, len) {
        partial += decoder.decode(view(ptr, len), { stream: true });
        let end;
        while ((end = partial.indexOf('\n')) >= 0) {
          port.post({ type: 'line', line: partial.slice(0, end).replace(/\r$/, '') });
          partial = partial.slice(end + 1);
        }
      },
      // During a search: the next line from the ring, written at ptr (see engine.js).
      poll(ptr, cap) {
        if (!ring) return -1;
        const length = ring.peekLength();
        if (length < 0) return -1;
        if (length > cap) return -2 - length; // kept; the engine asks again with room
        const bytes = ring.read();
        view(ptr, bytes.length).set(bytes);
        return bytes.length;
      },
      now_ms: () => performance.now(),
      fill_random(ptr, len) {
        // getRandomValues fills at most 65536 bytes a call.
        for (let at = 0; at < len; at += 65536) {
          crypto.getRandomValues(view(ptr + at, Math.min(65536, len - at)));
        }
      },
    },
  };
  const instance = await WebAssembly.instantiate(module, imports);
  memory = instance.exports.memory;
  engine = { exports: instance.exports, memory };
}

function flushPartial() {
  if (partial) port.post({ type: 'line', line: partial });
  partial = '';
}

/** The channel to the wrapper, the same shape in browsers and in Node. */
function browserPort() {
  return {
    onMessage: (f) => globalThis.addEventListener('message', (event) => f(event.data)),
    post: (m) => globalThis.postMessage(m),
  };
}

async function nodePort() {
  const { parentPort } = await import('node:worker_threads');
  if (!parentPort) throw new Error('worker.js runs as a worker, not as a main script');
  return { onMessage: (f) => parentPort.on('message', f), post: (m) => parentPort.postMessage(m) };
}
