/** Where the engine's WebAssembly comes from. */
export type WasmSource = WebAssembly.Module | ArrayBuffer | ArrayBufferView | URL | string;

export interface EngineOptions {
  /**
   * The engine: a compiled module, its bytes, or where to load it (a URL; in Node also a file
   * path). Default: dist/minishogi-engine.wasm of this package.
   */
  wasm?: WasmSource;
  /** The worker script. Default: worker.js beside engine.js. */
  workerUrl?: URL | string;
  /**
   * true: lines travel through a SharedArrayBuffer (throws where there is none); false:
   * through messages, with the wrapper standing in for `stop`, `isready` and `ponderhit`
   * during a search. Default: shared memory wherever it can be shared with a worker.
   */
  sharedMemory?: boolean;
  /** Capacity of the shared line ring in bytes (default 65536). */
  ringBytes?: number;
}

/** The minishogi engine in a worker, spoken to in USI. */
export declare class Engine implements AsyncIterable<string> {
  constructor(options?: EngineOptions);
  /** Called with each line the engine writes, without its newline. */
  onLine: ((line: string) => void) | null;
  /** Resolves when the engine is instantiated; rejects if it cannot be. */
  readonly ready: Promise<void>;
  /** Resolves when the engine has quit or been terminated. */
  readonly closed: Promise<void>;
  /** Whether lines travel through shared memory (false: message mode). */
  readonly sharedMemory: boolean;
  /** Sends one USI line (several if it holds newlines). Ignored once closed. */
  send(line: string): void;
  /**
   * The next line from now on that matches: a predicate, a RegExp, or a string (the whole
   * line, or its first words). Rejects after timeoutMs or when the engine closes.
   */
  waitFor(predicate: string | RegExp | ((line: string) => boolean), timeoutMs?: number): Promise<string>;
  /** Every line from now on, until the engine closes. */
  [Symbol.asyncIterator](): AsyncIterator<string>;
  /** Ends the worker at once. */
  terminate(): void;
}
