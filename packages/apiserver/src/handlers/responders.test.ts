import { warningHeader } from './responders.js';

// RFC 7234 5.5: warn-code SP warn-agent SP warn-text, the text a quoted-string.
describe('warningHeader', () => {
  test.each([
    ['unknown field "spec.x"', '299 - "unknown field \\"spec.x\\""'],
    ['back\\slash', '299 - "back\\\\slash"'],
    ['line\nbreak\ttab', '299 - "line break tab"'],
    ['', '299 - ""'],
  ])('%p', (text, header) => {
    expect(warningHeader(text)).toBe(header);
  });
});
