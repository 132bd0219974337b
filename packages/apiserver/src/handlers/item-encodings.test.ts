import { ItemEncodings } from './item-encodings.js';

/** A cache on a clock the test moves. */
function setup(maxChars = 1_000, periodMs = 100): { enc: ItemEncodings; at: { t: number } } {
  const at = { t: 0 };
  return { enc: new ItemEncodings({ maxChars, periodMs, now: () => at.t }), at };
}

describe('ItemEncodings', () => {
  test('gives JSON.stringify of the item and keeps it by identity when asked to', () => {
    const { enc } = setup();
    const a = { name: 'a', n: 1 };
    expect(enc.encode(a, true)).toBe(JSON.stringify(a));
    // The same object is never serialized again (a kept encoding is what is answered).
    const kept = enc.encode(a, true);
    expect(kept).toBe(JSON.stringify(a));
    expect(enc.size).toBe(kept.length);
    const b = { name: 'b' };
    expect(enc.encode(b, false)).toBe(JSON.stringify(b));
    expect(enc.size).toBe(kept.length);
    enc.clear();
  });

  test('a new version of an object (a new object, as the watch cache makes it) never gets the old encoding', () => {
    const { enc } = setup();
    const v1 = { metadata: { name: 'a', resourceVersion: '1' }, data: { k: 'old' } };
    expect(enc.encode(v1, true)).toBe(JSON.stringify(v1));
    const v2 = { metadata: { name: 'a', resourceVersion: '2' }, data: { k: 'new' } };
    expect(enc.encode(v2, true)).toBe(JSON.stringify(v2));
    expect(enc.encode(v1, true)).toBe(JSON.stringify(v1));
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

  test('never holds more than maxChars; when full it drops the older generation first', () => {
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
  ])('a list of %d items of ~%d characters is worth keeping with a bound of 1000: %s', (count, sample, want) => {
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
