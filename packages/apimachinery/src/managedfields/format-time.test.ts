import { formatTime } from './managers.js';

describe('formatTime', () => {
  it('gives RFC 3339 at second precision, the milliseconds dropped', () => {
    expect(formatTime(new Date('2026-11-26T16:45:01.999Z'))).toBe('2026-11-26T16:45:01Z');
    expect(formatTime(new Date('2026-11-26T16:45:02.000Z'))).toBe('2026-11-26T16:45:02Z');
  });

  it('answers every call with its own second, in any order of calls (the kept second is only a shortcut)', () => {
    const times = ['2026-11-26T16:45:01.001Z', '2026-11-26T16:45:01.500Z', '2026-11-26T16:45:00.999Z', '2026-11-26T16:45:01.000Z', '1970-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '2026-11-26T16:45:01.002Z'];
    for (const t of times) expect(formatTime(new Date(t))).toBe(`${t.slice(0, 19)}Z`);
  });

  it('formats years outside 0-9999 as toISOString does, rounded down to the second', () => {
    const late = new Date(Date.UTC(10000, 0, 1, 0, 0, 0, 750));
    expect(formatTime(late)).toBe('+010000-01-01T00:00:00Z');
    const early = new Date(Date.UTC(-1, 5, 1, 12, 0, 0, 250));
    expect(formatTime(early)).toBe('-000001-06-01T12:00:00Z');
    expect(formatTime(early)).toBe('-000001-06-01T12:00:00Z');
  });

  it('throws for an invalid date, also right after a valid one', () => {
    formatTime(new Date('2026-11-26T16:45:01Z'));
    expect(() => formatTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
