import { MALFORMED, tokenOfAuthorization } from './authenticator.js';

describe('tokenOfAuthorization (upstream bearer parsing)', () => {
  test.each<[string, string | typeof MALFORMED | undefined]>([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
    ['Bearer abc extra', 'abc'],
    ['Bearer  abc', MALFORMED],
    ['Bearer\tabc', MALFORMED],
    ['Bearer', MALFORMED],
    ['Bearer ', MALFORMED],
    ['Basic YTpi', MALFORMED],
    ['abc', MALFORMED],
    ['', undefined],
    ['   ', undefined],
  ])('%j', (header, expected) => {
    expect(tokenOfAuthorization(header)).toBe(expected);
  });
});
