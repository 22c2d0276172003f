// A single-producer single-consumer queue of lines in a SharedArrayBuffer: the wrapper
// (producer, on the page's or Node's main thread) writes lines, the worker (consumer) reads
// them — also while it is blocked inside a search, which is why lines cannot simply travel
// as messages (a busy worker does not run its message handlers).
//
// Layout: an Int32Array header [head, tail] followed by `capacity` data bytes (a power of
// two). head and tail are free-running 32-bit byte counters (compared modulo 2^32); the
// consumer alone moves head, the producer alone moves tail. Each record is a 4-byte
// little-endian length followed by the line's UTF-8 bytes, both possibly wrapping around the
// end of the data. Data are written before tail is published with Atomics.store and read
// after tail is loaded with Atomics.load, whose sequential consistency orders the plain
// byte accesses around them.

const HEAD = 0;
const TAIL = 1;
const HEADER_BYTES = 8;
const LENGTH_BYTES = 4;

/** The default data capacity: far more than a game's `position` line needs. */
export const DEFAULT_RING_BYTES = 1 << 16;

/** A SharedArrayBuffer for a ring of `capacity` data bytes (rounded up to a power of two). */
export function createRingBuffer(capacity = DEFAULT_RING_BYTES) {
  let size = 16;
  while (size < capacity) size *= 2;
  return new SharedArrayBuffer(HEADER_BYTES + size);
}

class Ring {
  constructor(sab) {
    this.header = new Int32Array(sab, 0, 2);
    this.data = new Uint8Array(sab, HEADER_BYTES);
    this.capacity = this.data.length;
    this.mask = this.capacity - 1;
    if ((this.capacity & this.mask) !== 0) throw new Error('ring: capacity is not a power of two');
  }

  used(head, tail) {
    return (tail - head) >>> 0;
  }

  copyIn(at, bytes) {
    for (let i = 0; i < bytes.length; i++) this.data[(at + i) & this.mask] = bytes[i];
  }

  copyOut(at, length) {
    // A private (non-shared) copy: TextDecoder refuses views of shared memory in browsers.
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.data[(at + i) & this.mask];
    return out;
  }
}

export class RingWriter extends Ring {
  /** The largest line this ring can ever carry, in UTF-8 bytes. */
  get maxLineBytes() {
    return this.capacity - LENGTH_BYTES;
  }

  /**
   * Appends one line's bytes; false (nothing written) when the ring lacks room now — the
   * caller keeps the line and tries again once the reader has made room.
   */
  tryWrite(bytes) {
    if (bytes.length > this.maxLineBytes) throw new RangeError(`ring: a line of ${bytes.length} bytes does not fit`);
    const head = Atomics.load(this.header, HEAD) >>> 0;
    const tail = Atomics.load(this.header, TAIL) >>> 0;
    if (this.capacity - this.used(head, tail) < LENGTH_BYTES + bytes.length) return false;
    const length = new Uint8Array(LENGTH_BYTES);
    new DataView(length.buffer).setUint32(0, bytes.length, true);
    this.copyIn(tail, length);
    this.copyIn(tail + LENGTH_BYTES, bytes);
    Atomics.store(this.header, TAIL, (tail + LENGTH_BYTES + bytes.length) | 0);
    return true;
  }
}

export class RingReader extends Ring {
  /** The byte length of the next line, or -1 when the ring is empty. */
  peekLength() {
    const head = Atomics.load(this.header, HEAD) >>> 0;
    const tail = Atomics.load(this.header, TAIL) >>> 0;
    if (this.used(head, tail) === 0) return -1;
    return new DataView(this.copyOut(head, LENGTH_BYTES).buffer).getUint32(0, true);
  }

  /** Removes and returns the next line's bytes, or null when the ring is empty. */
  read() {
    const length = this.peekLength();
    if (length < 0) return null;
    const head = Atomics.load(this.header, HEAD) >>> 0;
    const bytes = this.copyOut(head + LENGTH_BYTES, length);
    Atomics.store(this.header, HEAD, (head + LENGTH_BYTES + length) | 0);
    return bytes;
  }
}
