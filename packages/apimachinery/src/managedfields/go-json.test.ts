import { compareStrings } from './go-json.js';

/** Byte order of the UTF-8 encodings (a lone surrogate encodes as U+FFFD): what Go's strings.Compare gives. */
const byBytes = (a: string, b: string): number => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));

describe('compareStrings', () => {
  test.each([
    ['', ''],
    ['', 'a'],
    ['a', 'b'],
    ['ab', 'a'],
    ['f:a', 'f:b'],
    ['Z', 'a'],
    ['é', 'z'],
    ['\uffff', '\u{10000}'],
    ['\ue000', '\u{1f600}'],
    ['x\u{1f600}', 'x\uffff'],
    ['\u{1f600}a', '\u{1f600}b'],
    ['\u{1f600}', '\u{1f601}'],
    ['\u{1f600}', '\u{1f600}'],
    ['a\ud800', 'a\u{10000}'],
  ])('%j against %j orders as UTF-8 bytes do', (a, b) => {
    const want = a === b ? 0 : byBytes(a, b) || Math.sign(a.length - b.length);
    expect(compareStrings(a, b)).toBe(want);
    expect(compareStrings(b, a)).toBe(want === 0 ? 0 : -want);
  });
});
