import { formatMicroTime, formatTime, parseTimestamp } from './time-format.js';

describe('Time and MicroTime JSON forms', () => {
  test.each([
    [{ seconds: 0, nanos: 0 }, '1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000000Z'],
    [{ seconds: 1704164645, nanos: 123456789 }, '2024-01-02T03:04:05Z', '2024-01-02T03:04:05.123456Z'],
    [{ seconds: 1704164645, nanos: 999 }, '2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000000Z'],
    [{ seconds: -62135596800, nanos: 0 }, '0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000000Z'],
    [{ seconds: 253402300799, nanos: 0 }, '9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000000Z'],
    [{ seconds: 10, nanos: 1_500_000_000 }, '1970-01-01T00:00:11Z', '1970-01-01T00:00:11.500000Z'],
  ])('%o formats as %s / %s', (ts, time, micro) => {
    expect(formatTime(ts)).toBe(time);
    expect(formatMicroTime(ts)).toBe(micro);
  });

  test.each([{ seconds: 253402300800, nanos: 0 }, { seconds: -62167219201, nanos: 0 }, { seconds: 1e20, nanos: 0 }])(
    'year outside [0, 9999] is refused like Go MarshalJSON: %o',
    (ts) => {
      expect(() => formatTime(ts)).toThrow('year outside of range [0,9999]');
    },
  );

  test.each([
    ['2024-01-02T03:04:05Z', { seconds: 1704164645, nanos: 0 }],
    ['2024-01-02T03:04:05.123456Z', { seconds: 1704164645, nanos: 123456000 }],
    ['2024-01-02T03:04:05.123456789Z', { seconds: 1704164645, nanos: 123456789 }],
    ['2024-01-02T05:34:05+02:30', { seconds: 1704164645, nanos: 0 }],
    ['2024-01-01T23:04:05-04:00', { seconds: 1704164645, nanos: 0 }],
    ['0050-01-01T00:00:00Z', { seconds: -60589296000, nanos: 0 }],
    ['2024-02-29T00:00:00z', { seconds: 1709164800, nanos: 0 }],
  ])('parses %s', (text, ts) => {
    expect(parseTimestamp(text)).toEqual(ts);
  });

  test.each(['', '2024-01-02', '2024-01-02 03:04:05Z', '2024-13-01T00:00:00Z', '2023-02-29T00:00:00Z', '2024-01-02T24:00:00Z', '2024-01-02T03:04:05', '2024-01-02T03:04:05.Z', '2024-01-02T03:04:05+25:00'])(
    'rejects %j',
    (text) => {
      expect(() => parseTimestamp(text)).toThrow(RangeError);
    },
  );
});
