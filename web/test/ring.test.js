// The shared-memory line queue (src/ring.js) on its own.
import assert from 'node:assert/strict';
import test from 'node:test';
import { createRingBuffer, RingReader, RingWriter } from '../src/ring.js';

const encode = (text) => new TextEncoder().encode(text);
const decode = (bytes) => new TextDecoder().decode(bytes);

test('ring: lines come out whole and in order, also across the wrap-around', () => {
  const buffer = createRingBuffer(128);
  const writer = new RingWriter(buffer);
  const reader = new RingReader(buffer);
  assert.equal(reader.read(), null);
  // Many more bytes than the capacity, so head and tail wrap many times.
  for (let i = 0; i < 500; i++) {
    const lines = [`go nodes ${i}`, 'stop', `position startpos moves ${'5d5c '.repeat(i % 7)}`.trim()];
    for (const line of lines) assert.ok(writer.tryWrite(encode(line)), `room for ${line}`);
    for (const line of lines) assert.equal(decode(reader.read()), line);
    assert.equal(reader.read(), null);
  }
});

test('ring: a full ring refuses a line and takes it once the reader has made room', () => {
  const buffer = createRingBuffer(32);
  const writer = new RingWriter(buffer);
  const reader = new RingReader(buffer);
  assert.ok(writer.tryWrite(encode('x'.repeat(20)))); // 24 of 32 bytes
  assert.equal(writer.tryWrite(encode('y'.repeat(5))), false);
  assert.equal(decode(reader.read()), 'x'.repeat(20));
  assert.ok(writer.tryWrite(encode('y'.repeat(5))));
  assert.equal(decode(reader.read()), 'y'.repeat(5));
  assert.throws(() => writer.tryWrite(encode('z'.repeat(29))), RangeError);
});

test('ring: peekLength tells the next length without taking it (for poll)', () => {
  const buffer = createRingBuffer(64);
  const writer = new RingWriter(buffer);
  const reader = new RingReader(buffer);
  assert.equal(reader.peekLength(), -1);
  const line = 'setoption name USI_Hash value 16 — ünïcode';
  writer.tryWrite(encode(line));
  assert.equal(reader.peekLength(), encode(line).length);
  assert.equal(reader.peekLength(), encode(line).length);
  assert.equal(decode(reader.read()), line);
  assert.equal(reader.peekLength(), -1);
});
