import { ItemEncodings } from './item-encodings.js';

/** A cache on a clock the test moves. */
function setup(maxBytes = 1_000, periodMs = 100): { enc: ItemEncodings; at: { t: number } } {
  const at = { t: 0 };
  return { enc: new ItemEncodings({ maxBytes, periodMs, now: () => at.t }), at };
}

describe('ItemEncodings', () => {
  test('gives JSON.stringify of the item and keeps it by identity when asked to', () => {
    const { enc } = setup();
    const a = { name: 'a', n: 1 };
    expect(enc.encode(a, true).toString()).toBe(JSON.stringify(a));
    // The same object is never serialized again (a kept encoding is what is answered).
    const kept = enc.encode(a, true);
    expect(kept.toString()).toBe(JSON.stringify(a));
    expect(enc.encode(a, true)).toBe(kept);
    expect(enc.size).toBe(kept.length);
    const b = { name: 'b' };
    expect(enc.encode(b, false).toString()).toBe(JSON.stringify(b));
    expect(enc.size).toBe(kept.length);
    enc.clear();
  });

  test('a new version of an object (a new object, as the watch cache makes it) never gets the old bytes', () => {
    const { enc } = setup();
    const v1 = { metadata: { name: 'a', resourceVersion: '1' }, data: { k: 'old' } };
    const old = enc.encode(v1, true);
    const v2 = { metadata: { name: 'a', resourceVersion: '2' }, data: { k: 'new' } };
    const fresh = enc.encode(v2, true);
    expect(fresh.toString()).toBe(JSON.stringify(v2));
    expect(enc.encode(v2, true)).toBe(fresh);
    expect(enc.encode(v1, true)).toBe(old);
    expect(old.toString()).toBe(JSON.stringify(v1));
    enc.clear();
  });

  test('keeps UTF-8 bytes in memory of their own and counts bytes, not characters', () => {
    const { enc } = setup();
    // Small Buffers usually share Node's 8 KiB pool; a kept one must not hold such a slab alive.
    const pooled = Buffer.from('x');
    expect(pooled.buffer.byteLength).toBeGreaterThan(1);
    const a = { s: 'é\u2028' };
    const kept = enc.encode(a, true);
    expect(kept.toString('utf8')).toBe(JSON.stringify(a));
    expect(kept.byteOffset).toBe(0);
    expect(kept.buffer.byteLength).toBe(kept.length);
    expect(enc.size).toBe(Buffer.byteLength(JSON.stringify(a)));
    expect(enc.size).toBeGreaterThan(JSON.stringify(a).length);
    enc.clear();
  });

  test.each([
    // [ms since the last use, kept?]
    [50, true],
    [150, true], // rotated once: in the older generation
    [250, false], // two periods without use
  ])('an encoding last used %d ms ago is kept: %s', (ago, kept) => {
    const { enc, at } = setup();
    const a = { name: 'a' };
    enc.encode(a, true);
    at.t = ago;
    enc.encode({ other: true }, false); // a look that rotates
    expect(enc.size > 0).toBe(kept);
    enc.clear();
  });

  test('a hit in the older generation survives the next rotation', () => {
    const { enc, at } = setup();
    const a = { name: 'a' };
    enc.encode(a, true);
    at.t = 150;
    enc.encode(a, true);
    at.t = 260;
    enc.encode({}, false);
    expect(enc.size).toBe(JSON.stringify(a).length);
    enc.clear();
  });

  test('never holds more than maxBytes; when full it drops the older generation first', () => {
    const { enc, at } = setup(100);
    const items = Array.from({ length: 10 }, (_, i) => ({ s: 'x'.repeat(20), i }));
    for (const item of items) enc.encode(item, true);
    expect(enc.size).toBeLessThanOrEqual(100);
    at.t = 150; // what was kept is now the older generation
    for (const item of items.slice(0, 3)) enc.encode({ ...item, again: 1 }, true);
    expect(enc.size).toBeLessThanOrEqual(100);
    // Two of the 44-character encodings fit in 100 once the older generation is gone; the third does not.
    expect(enc.size).toBe(2 * JSON.stringify({ ...items[0], again: 1 }).length);
    enc.clear();
  });

  test.each([
    [10, 40, true],
    [20, 25, true],
    [20, 26, false],
    [1_000, 1, false],
  ])('a list of %d items of ~%d bytes is worth keeping with a bound of 1000: %s', (count, sample, want) => {
    expect(setup().enc.worthKeeping(count, sample)).toBe(want);
  });

  test('an idle cache lets its encodings go by itself', async () => {
    const enc = new ItemEncodings({ periodMs: 20 });
    enc.encode({ a: 1 }, true);
    expect(enc.size).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(enc.size).toBe(0);
    enc.clear();
  });
});
