import { mediaTypeSyntaxError } from './media-type.js';

describe('mediaTypeSyntaxError (Go mime.ParseMediaType grammar)', () => {
  test.each<[string, boolean]>([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['application/json;charset="utf-8"', true],
    ['application/apply-patch+yaml', true],
    ['application/vnd.kubernetes.protobuf;stream=watch', true],
    ['application/json;', true],
    ['application/json ; charset=utf-8 ', true],
    ['application/json; charset', false],
    ['application/json;;=x', false],
    ['application/json; charset="utf', false],
    ['application/json; a=1; a=2', false],
    ['application/json; a=b c', false],
    ['application json', false],
    ['/json', false],
    ['', false],
  ])('%j valid: %s', (text, valid) => {
    expect(mediaTypeSyntaxError(text) === undefined).toBe(valid);
  });
});
