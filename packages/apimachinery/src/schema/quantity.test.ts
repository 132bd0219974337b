import { canonicalQuantity, QUANTITY_FORMAT_ERROR } from './quantity.js';

describe('canonicalQuantity', () => {
  it.each([
    ['0', '0'],
    ['0.0', '0'],
    ['-0', '0'],
    ['1', '1'],
    ['+1', '1'],
    ['100m', '100m'],
    ['1000m', '1'],
    ['0.5', '500m'],
    ['.5', '500m'],
    ['1.', '1'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['1.5k', '1500'],
    ['12e6', '12e6'],
    ['12000000', '12M'],
    ['1e3', '1e3'],
    ['1E3', '1e3'],
    ['1000e-3', '1'],
    ['128Mi', '128Mi'],
    ['1024Mi', '1Gi'],
    ['1000Mi', '1000Mi'],
    ['1.5Gi', '1536Mi'],
    ['512Ki', '512Ki'],
    ['0.5Ki', '512'],
    ['1023', '1023'],
    ['0.1Ki', '102400m'],
    ['1n', '1n'],
    ['0.1n', '1n'],
    ['-0.1n', '-1n'],
    ['-250m', '-250m'],
    ['5G', '5G'],
    ['1Ei', '1Ei'],
  ])('%s -> %s', (input, expected) => {
    expect(canonicalQuantity(input)).toEqual({ value: expected });
  });

  it.each([[''], ['abc'], ['1 Gi'], [' 1'], ['.'], ['1..2'], ['Gi'], ['--1'], ['true'], ['{}']])('%j is not a quantity', (input) => {
    expect(canonicalQuantity(input)).toEqual({ error: QUANTITY_FORMAT_ERROR });
  });

  it.each([['1Zi'], ['1kk'], ['1Mb'], ['1e']])('%j has an unknown suffix', (input) => {
    expect(canonicalQuantity(input)).toHaveProperty('error');
  });
});
