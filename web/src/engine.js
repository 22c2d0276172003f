// The engine as a USI endpoint: `send(line)` in, `onLine(line)` out, with the engine running
// in a worker (worker.js). The same code runs in browsers and in Node.
//
// Two ways for lines to reach the worker:
// - Shared memory (Node, and cross-origin-isolated pages): each line goes into a ring in a
//   SharedArrayBuffer (ring.js) and a small message wakes the worker. A searching worker
//   reads the ring itself, so the engine hears `stop`, `ponderhit`, `isready` and `quit`.
// - Messages (pages without SharedArrayBuffer): a searching worker cannot read its messages
//   until the search ends, so this wrapper handles what the engine cannot hear: `isready` is
//   answered here; `stop` replaces the worker with a fresh one from the same compiled module
//   (bestmove: the first move of the last principal variation reported) and replays the
//   setup (setup.js); `ponderhit` replaces it too and restarts the search as a normal one.
//   Other lines wait here until the search ends, so that they reach the engine in order.
// A worker that dies is replaced in the same way, in either mode.

import { compileWasm, DEFAULT_WORKER_URL, sharedMemoryAvailable, startWorker } from './platform.js';
import { createRingBuffer, DEFAULT_RING_BYTES, RingWriter } from './ring.js';
import { SetupRecord } from './setup.js';

const encoder = new TextEncoder();

export class Engine {
  /** Called with each line the engine writes (without its newline). */
  onLine = null;

  #workerUrl;
  #ringBytes;
  #useRing;
  #module; // Promise<WebAssembly.Module>, compiled once for every worker
  #generation = 0; // messages from replaced workers are ignored
  #worker = null;
  #beforeStart = []; // messages for a worker still starting
  #ring = null; // RingWriter
  #ringBacklog = []; // encoded lines waiting for room in the ring
  #ringTimer = null;
  #setup = new SetupRecord();
  #searches = 0; // `go`s sent whose bestmove/checkmate has not come yet
  #goLine = null; // the last `go` sent
  #bestGuess = null; // first move of the last principal variation of the running search
  #held = []; // message mode: lines waiting for the running search to end
  #replaying = false; // a fresh worker is being set up: its replies are not the user's
  #waiters = new Set(); // line listeners of waitFor and the iterators
  #closed = false;
  #resolveReady;
  #rejectReady;
  #resolveClosed;

  /**
   * @param {object} [options]
   * @param {WebAssembly.Module|ArrayBuffer|ArrayBufferView|URL|string} [options.wasm]
   *   the engine; by default dist/minishogi-engine.wasm of this package
   * @param {URL|string} [options.workerUrl] worker.js, by default beside this script
   * @param {boolean} [options.sharedMemory] force the ring on (throws if unavailable) or
   *   off (message mode); by default on wherever SharedArrayBuffer can be shared
   * @param {number} [options.ringBytes] the ring's capacity
   */
  constructor(options = {}) {
    this.#workerUrl = options.workerUrl ?? DEFAULT_WORKER_URL;
    this.#ringBytes = options.ringBytes ?? DEFAULT_RING_BYTES;
    const available = sharedMemoryAvailable();
    if (options.sharedMemory === true && !available) {
      throw new Error('minishogi-engine: SharedArrayBuffer is not available (is the page cross-origin isolated?)');
    }
    this.#useRing = options.sharedMemory ?? available;
    /** Resolves when the first worker has instantiated the engine. */
    this.ready = new Promise((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.ready.catch(() => {}); // a rejection nobody awaits must not end the process
    /** Resolves when the engine has quit or been terminated. */
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#module = compileWasm(options.wasm);
    this.#module.catch(() => {});
    this.#spawn();
  }

  /** Whether lines travel through shared memory (false: message mode). */
  get sharedMemory() {
    return this.#useRing;
  }

  /** Sends one USI line (several if `line` holds newlines). Ignored once closed. */
  send(line) {
    for (const one of String(line).split(/\r?\n/)) {
      if (one.trim() !== '' && !this.#closed) this.#sendOne(one.trim());
    }
  }

  /** Ends the worker at once (no `quit` needed). */
  terminate() {
    if (this.#closed) return;
    this.#closed = true;
    this.#dropWorker();
    this.#rejectReady(new Error('minishogi-engine: terminated'));
    for (const waiter of [...this.#waiters]) waiter.close();
    this.#resolveClosed();
  }

  /**
   * The next line from now on that matches: a function of the line, a RegExp, or a string
   * (the line itself or its first words). Rejects after timeoutMs or when the engine closes.
   */
  waitFor(predicate, timeoutMs = Infinity) {
    const matches = toPredicate(predicate);
    return new Promise((resolve, reject) => {
      if (this.#closed) return reject(new Error('minishogi-engine: closed'));
      let timer = null;
      const waiter = {
        line: (line) => {
          if (!matches(line)) return;
          finish();
          resolve(line);
        },
        close: () => {
          finish();
          reject(new Error(`minishogi-engine: closed while waiting for ${describe(predicate)}`));
        },
      };
      const finish = () => {
        this.#waiters.delete(waiter);
        if (timer !== null) clearTimeout(timer);
      };
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          finish();
          reject(new Error(`minishogi-engine: no ${describe(predicate)} within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.#waiters.add(waiter);
    });
  }

  /** Every line from now on, until the engine closes: `for await (const line of engine)`. */
  [Symbol.asyncIterator]() {
    const queue = [];
    let wake = null;
    let done = this.#closed;
    const waiter = {
      line: (line) => {
        queue.push(line);
        wake?.();
      },
      close: () => {
        done = true;
        this.#waiters.delete(waiter);
        wake?.();
      },
    };
    if (!done) this.#waiters.add(waiter);
    return {
      next: async () => {
        while (queue.length === 0 && !done) await new Promise((resolve) => (wake = resolve));
        wake = null;
        return queue.length > 0 ? { value: queue.shift(), done: false } : { value: undefined, done: true };
      },
      return: async () => {
        waiter.close();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  // --- lines in ---

  #sendOne(line) {
    const word = firstWord(line);
    if (this.#useRing) {
      // The engine hears everything itself, also during a search.
      this.#deliver(line);
      return;
    }
    if (this.#searches > 0) {
      switch (word) {
        case 'isready':
          this.#emitSoon('readyok');
          return;
        case 'stop':
          this.#replaceWorker('stop');
          return;
        case 'ponderhit':
          this.#replaceWorker('ponderhit');
          return;
        case 'quit':
          this.terminate();
          return;
        default:
      }
    }
    if (this.#searches > 0 || this.#held.length > 0) this.#held.push(line);
    else this.#deliver(line);
  }

  /** Sends a line of the user's to the worker, noting what it changes. */
  #deliver(line) {
    this.#setup.note(line);
    if (firstWord(line) === 'go') {
      this.#searches += 1;
      this.#goLine = line;
      this.#bestGuess = null;
    }
    this.#transmit(line);
  }

  /** Message mode: sends the held lines, up to and including the next `go`. */
  #releaseHeld() {
    while (this.#held.length > 0 && this.#searches === 0 && !this.#closed) {
      this.#deliver(this.#held.shift());
    }
  }

  #transmit(line) {
    if (!this.#useRing) {
      this.#post({ type: 'line', line });
      return;
    }
    const bytes = encoder.encode(line);
    if (bytes.length > this.#ring.maxLineBytes) {
      throw new RangeError(`minishogi-engine: a line of ${bytes.length} bytes exceeds the ring (ringBytes)`);
    }
    this.#ringBacklog.push(bytes);
    this.#fillRing();
  }

  /** Moves the backlog into the ring as room allows; retries shortly while room lacks. */
  #fillRing() {
    let wrote = false;
    while (this.#ringBacklog.length > 0 && this.#ring.tryWrite(this.#ringBacklog[0])) {
      this.#ringBacklog.shift();
      wrote = true;
    }
    if (wrote) this.#post({ type: 'wake' });
    if (this.#ringBacklog.length > 0 && this.#ringTimer === null) {
      this.#ringTimer = setTimeout(() => {
        this.#ringTimer = null;
        if (this.#ring) this.#fillRing();
      }, 2);
    }
  }

  #post(message) {
    if (this.#worker) this.#worker.post(message);
    else this.#beforeStart.push(message);
  }

  // --- workers ---

  /** Starts a worker (asynchronously); messages posted meanwhile wait for it. */
  #spawn() {
    const generation = ++this.#generation;
    const ringBuffer = this.#useRing ? createRingBuffer(this.#ringBytes) : null;
    this.#ring = ringBuffer ? new RingWriter(ringBuffer) : null;
    this.#ringBacklog = [];
    this.#beforeStart = [];
    const current = () => generation === this.#generation && !this.#closed;
    (async () => {
      const module = await this.#module;
      const worker = await startWorker(this.#workerUrl, {
        onMessage: (message) => current() && this.#fromWorker(message),
        onError: (error) => current() && this.#workerFailed(error.message),
      });
      if (!current()) {
        worker.terminate();
        return;
      }
      this.#worker = worker;
      worker.post({ type: 'init', module, ring: ringBuffer ?? undefined });
      for (const message of this.#beforeStart) worker.post(message);
      this.#beforeStart = [];
    })().catch((error) => current() && this.#workerFailed(error.message, true));
  }

  #dropWorker() {
    this.#generation += 1;
    this.#worker?.terminate();
    this.#worker = null;
    if (this.#ringTimer !== null) clearTimeout(this.#ringTimer);
    this.#ringTimer = null;
  }

  /**
   * Replaces the worker with a fresh one in the same state. `why`: 'stop' (answer the
   * running search here), 'ponderhit' (run it again as a normal search), 'failure'.
   */
  #replaceWorker(why) {
    const searching = this.#searches > 0;
    const goLine = this.#goLine;
    this.#dropWorker();
    this.#searches = 0;
    this.#spawn();
    // The fresh worker's replies to the replay are not the user's: they are dropped up to
    // the `readyok` of the `isready` sent after them.
    this.#replaying = true;
    for (const line of this.#setup.replay()) this.#transmit(line);
    this.#transmit('isready');
    if (searching && why === 'ponderhit') {
      this.#deliver(goLine.split(/\s+/).filter((word) => word !== 'ponder').join(' '));
    } else if (searching) {
      const mateSearch = goLine.split(/\s+/).includes('mate');
      // A mate search that was cut short found no mate in its time: `checkmate timeout`.
      this.#emitSoon(mateSearch ? 'checkmate timeout' : `bestmove ${this.#bestGuess ?? 'resign'}`);
    }
    this.#releaseHeld();
  }

  #fromWorker(message) {
    switch (message.type) {
      case 'ready':
        this.#resolveReady();
        break;
      case 'line':
        this.#fromEngine(message.line);
        break;
      case 'exit': // the engine quit
        this.terminate();
        break;
      case 'error':
        this.#workerFailed(message.message);
        break;
      default:
    }
  }

  #fromEngine(line) {
    if (this.#replaying) {
      if (line === 'readyok') this.#replaying = false;
      return;
    }
    const word = firstWord(line);
    if ((word === 'bestmove' || word === 'checkmate') && this.#searches > 0) {
      this.#searches -= 1;
      // Before the user hears the bestmove (and may answer at once), so that lines sent
      // earlier go first.
      if (!this.#useRing) this.#releaseHeld();
    } else if (word === 'info' && this.#searches > 0) {
      this.#bestGuess = firstPvMove(line) ?? this.#bestGuess;
    }
    this.#emit(line);
  }

  /** A worker that failed to start or died: replaced once it had started; else fatal. */
  #workerFailed(reason, beforeStart = false) {
    if (this.#closed) return;
    const fatal = beforeStart || this.#replaying || !this.#worker;
    this.#emit(`info string error: engine worker failed: ${reason}${fatal ? '' : '; restarting it'}`);
    if (!fatal) {
      this.#replaceWorker('stop');
      return;
    }
    // Nothing to restart from: every running search still gets its answer.
    if (this.#searches > 0) this.#emit(`bestmove ${this.#bestGuess ?? 'resign'}`);
    this.#rejectReady(new Error(`minishogi-engine: ${reason}`));
    this.terminate();
  }

  // --- lines out ---

  #emit(line) {
    try {
      this.onLine?.(line);
    } catch (error) {
      queueMicrotask(() => {
        throw error; // the user's handler failed: report it without breaking the engine
      });
    }
    for (const waiter of [...this.#waiters]) waiter.line(line);
  }

  /** A line of the wrapper's own, after the current call (never inside `send`). */
  #emitSoon(line) {
    queueMicrotask(() => !this.#closed && this.#emit(line));
  }
}

function firstWord(line) {
  return line.trim().split(/\s+/, 1)[0];
}

/** The first move of an `info … pv …` line (of its first line when MultiPV > 1). */
function firstPvMove(line) {
  const words = line.split(/\s+/);
  const multipv = words.indexOf('multipv');
  if (multipv >= 0 && words[multipv + 1] !== '1') return null;
  const pv = words.indexOf('pv');
  return pv >= 0 && words[pv + 1] ? words[pv + 1] : null;
}

function toPredicate(predicate) {
  if (typeof predicate === 'function') return predicate;
  if (predicate instanceof RegExp) return (line) => predicate.test(line);
  const text = String(predicate);
  return (line) => line === text || line.startsWith(`${text} `);
}

function describe(predicate) {
  return typeof predicate === 'function' ? 'matching line' : `line ${String(predicate)}`;
}
