import { canonicalQuantity, QUANTITY_FORMAT_ERROR, formatQuantity, parseQuantity, scaledQuantityValue } from './quantity.js';

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

describe('quantity arithmetic (LimitRanger)', () => {
  const amount = (text: string) => {
    const a = parseQuantity(text);
    if (!a) throw new Error(`not a quantity: ${text}`);
    return a;
  };
  test.each<[string, bigint, bigint]>([
    ['500m', 1n, 500n],
    ['1.5', 2n, 1500n],
    ['100Mi', 104857600n, 104857600000n],
    ['1n', 1n, 1n],
    ['-1500m', -1n, -1500n],
    ['0', 0n, 0n],
  ])('%s: Value %d, MilliValue %d (rounded up)', (text, value, milli) => {
    expect(scaledQuantityValue(amount(text), 0)).toBe(value);
    expect(scaledQuantityValue(amount(text), -3)).toBe(milli);
  });

  test('sums keep the first operand format and print canonically', () => {
    const a = amount('150Mi');
    const sum = { nanos: a.nanos + amount('100Mi').nanos, format: a.format };
    expect(formatQuantity(sum)).toBe('250Mi');
    expect(formatQuantity({ nanos: amount('100m').nanos + amount('400m').nanos, format: 'DecimalSI' })).toBe('500m');
    expect(parseQuantity('bogus')).toBeUndefined();
  });
});
