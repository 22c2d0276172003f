// The page's transport on the static site: no server. The board's session core runs in this
// page as WebAssembly (the same module as the engine: crates/minishogi-web, board.rs) and the
// engines it asks for run in Web Workers (the npm package's Engine, ../engine/). The core
// decides everything — the rules, the clocks, what searches when, the notation, the win
// probabilities; this module only carries its calls, its events and its engines' lines.
//
// Each call answers with what the core asks for, in order (minishogi_board::Command):
//   {event: {name, data}}                  an event for the page (state, info, mate)
//   {start: {role, serial, engine, options}} start an engine in a role (replacing its engine)
//   {job: {role, job}}                     search / stop / options for that engine
//   {close: {role}}                        end that engine
// Engines' reports go back as {call: 'report', role, serial, report}.
//
// The interface is the one transport-http.js documents.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** How often the core's clocks are checked (a flag falls within this of its time). */
const TICK_MS = 50;

/**
 * The core as WebAssembly on this thread: `call(request)` → the answer object.
 * @param {WebAssembly.Module} module
 */
async function instantiateCore(module) {
  let memory = null;
  const view = (ptr, len) => new Uint8Array(memory.buffer, ptr, len);
  const imports = {
    minishogi: {
      // The engine's USI output and input: not used by the board's calls.
      write(ptr, len) {
        console.warn(decoder.decode(view(ptr, len)));
      },
      poll: () => -1,
      now_ms: () => performance.now(),
      fill_random(ptr, len) {
        for (let at = 0; at < len; at += 65536) crypto.getRandomValues(view(ptr + at, Math.min(65536, len - at)));
      },
    },
  };
  const instance = await WebAssembly.instantiate(module, imports);
  memory = instance.exports.memory;
  const { board_buffer: buffer, board_call: handle, board_answer: answer } = instance.exports;
  return {
    call(request) {
      const bytes = encoder.encode(JSON.stringify(request));
      view(buffer(bytes.length), bytes.length).set(bytes);
      const length = handle(bytes.length);
      return JSON.parse(decoder.decode(view(answer(), length)));
    },
  };
}

/**
 * One engine for the core, in a worker: it does the engine's jobs in order, as the native
 * server's engine threads do (src/gui/engine.rs): a new job first stops the search before
 * it and waits for that search's last line; options the engine does not declare are left out.
 */
class EngineDriver {
  #engine;
  #report;
  #declared = null; // Set of option names, once the handshake is done
  #jobs = [];
  #current = null; // the purpose of the search under way
  #stopping = false;
  #failed = false;

  constructor(Engine, module, options, report) {
    this.#report = report;
    this.#engine = new Engine({ wasm: module });
    const declared = new Set();
    this.#engine.onLine = (line) => {
      if (this.#declared === null) {
        const option = /^option name (\S+)/.exec(line);
        if (option) declared.add(option[1]);
        if (line === 'usiok') {
          this.#declared = declared;
          this.#setOptions(options);
          this.#pump();
        }
        return;
      }
      this.#onLine(line);
    };
    this.#engine.ready.catch((error) => this.#fail(error));
    this.#engine.closed.then(() => this.#fail(new Error('the engine closed')));
    this.#engine.send('usi');
  }

  job(job) {
    this.#jobs.push(job);
    this.#pump();
  }

  terminate() {
    this.#failed = true; // ended on purpose: nothing more to report
    this.#engine.terminate();
  }

  #fail(error) {
    if (this.#failed) return;
    this.#failed = true;
    this.#report({ failed: `minishogi-engine: ${error?.message ?? error}` });
  }

  #setOptions(options) {
    for (const [name, value] of options) {
      if (this.#declared.has(name)) this.#engine.send(`setoption name ${name} value ${value}`);
    }
    this.#engine.send('isready');
  }

  #pump() {
    if (this.#declared === null || this.#failed) return;
    if (this.#current !== null) {
      if (this.#jobs.length && !this.#stopping) {
        this.#stopping = true;
        this.#engine.send('stop');
      }
      return;
    }
    while (this.#jobs.length && this.#current === null) {
      const job = this.#jobs.shift();
      // A job is 'stop' or {search} or {options} (a string has a `search` method: ask first).
      if (typeof job !== 'object') continue;
      if (job.search) {
        const { position, go, purpose } = job.search;
        this.#engine.send(position);
        this.#engine.send(go);
        this.#current = purpose;
        this.#report({ started: { purpose } });
      } else if (job.options) {
        this.#setOptions(job.options);
      }
      // 'stop': the search before it has ended already.
    }
    if (this.#current !== null && this.#jobs.length) this.#pump();
  }

  #onLine(line) {
    const purpose = this.#current;
    if (purpose === null) return;
    const [word, second] = line.split(/\s+/, 2);
    if (word === 'info' && second !== 'string') {
      this.#report({ info: { purpose, line } });
    } else if (word === 'bestmove' || word === 'checkmate') {
      this.#current = null;
      this.#stopping = false;
      if (word === 'bestmove') this.#report({ bestmove: { purpose, token: second ?? '' } });
      else this.#report({ checkmate: { purpose, rest: line.slice('checkmate'.length).trim() } });
      this.#pump();
    }
  }
}

/**
 * The transport.
 * @param {object} [options]
 * @param {URL|string} [options.engineBase] the folder of the engine package's scripts and
 *   .wasm (default: ../engine/ beside this page's modules, as the site is laid out)
 * @param {URL|string} [options.wasm] the .wasm (default: minishogi-engine.wasm there)
 */
export async function localTransport(options = {}) {
  const engineBase = new URL(options.engineBase ?? '../engine/', import.meta.url);
  const { Engine } = await import(new URL('engine.js', engineBase).href);
  const { compileWasm } = await import(new URL('platform.js', engineBase).href);
  const module = await compileWasm(options.wasm ?? new URL('minishogi-engine.wasm', engineBase));
  const core = await instantiateCore(module);

  let handlers = null; // events before anyone subscribed are dropped: the state comes first
  const engines = new Map(); // role → EngineDriver

  const deliver = (name, data) => handlers?.[name]?.(data);

  const carryOut = (command) => {
    if (command.event) {
      deliver(command.event.name, command.event.data);
    } else if (command.start) {
      const { role, serial, options: engineOptions } = command.start;
      engines.get(role)?.terminate();
      const report = (what) => {
        // A report may come while a call is under way: after it, in order.
        queueMicrotask(() => {
          try {
            run({ call: 'report', role, serial, report: what });
          } catch (error) {
            console.error(error);
          }
        });
      };
      engines.set(role, new EngineDriver(Engine, module, engineOptions, report));
    } else if (command.job) {
      engines.get(command.job.role)?.job(command.job.job);
    } else if (command.close) {
      engines.get(command.close.role)?.terminate();
      engines.delete(command.close.role);
    }
  };

  /** One call to the core; its commands are carried out; a refusal throws. */
  const run = (request) => {
    const answer = core.call(request);
    for (const command of answer.commands ?? []) carryOut(command);
    if (answer.error !== undefined) {
      const error = new Error(answer.error);
      error.status = answer.status ?? 400;
      throw error;
    }
    return answer.ok;
  };
  const call = async (request) => run(request);

  const requests = {
    state: () => ({ call: 'state' }),
    move: (body) => ({ call: 'move', move: body.move }),
    new: (body) => ({ call: 'new', game: body }),
    undo: () => ({ call: 'undo' }),
    resign: () => ({ call: 'resign' }),
    goto: (body) => ({ call: 'goto', node: body.node }),
    analysis: (body) => ({ call: 'analysis', on: body.on, multipv: body.multipv }),
    mate: (body) => ({ call: 'mate', movetime_ms: body.movetime_ms }),
    review: (body) => ({ call: 'review', nodes: body.nodes }),
    puzzle_start: (body) => ({ call: 'puzzle_start', puzzle: { id: body.id, sfen: body.sfen, moves: body.moves } }),
    puzzle_hint: () => ({ call: 'puzzle_hint' }),
    puzzle_solution: () => ({ call: 'puzzle_solution' }),
    puzzle_end: () => ({ call: 'puzzle_end' }),
  };

  const ticker = setInterval(() => {
    try {
      run({ call: 'tick' });
    } catch (error) {
      console.error(error);
    }
  }, TICK_MS);

  return {
    /** Where the session lives, for the page's labels. */
    home: 'static',

    async request(name, body = {}) {
      const make = requests[name];
      if (!make) throw Object.assign(new Error(`no such request '${name}'`), { status: 404 });
      return call(make(body));
    },

    async preview(node, moves) {
      return call({ call: 'preview', node, moves });
    },

    async setup(position) {
      return call({ ...position, call: 'setup' });
    },

    async loadRecord(bytes, format = 'auto') {
      const array = Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
      return call({ call: 'load_record', bytes: array, format });
    },

    async saveRecord(format) {
      const file = await call({ call: 'save_record', format });
      return { bytes: Uint8Array.from(file.bytes), filename: file.filename, type: file.content_type };
    },

    subscribe(newHandlers) {
      handlers = newHandlers;
      // The state first, then the lines of searches under way.
      for (const event of run({ call: 'catch_up' })) deliver(event.name, event.data);
    },

    /** Ends the engines and the clock (tests; a page just closes). */
    close() {
      clearInterval(ticker);
      for (const engine of engines.values()) engine.terminate();
      engines.clear();
    },
  };
}
