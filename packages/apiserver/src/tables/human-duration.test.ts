import { humanDuration } from './human-duration.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

// Expectations follow upstream's duration_test.go for HumanDuration.
describe('humanDuration', () => {
  test.each([
    [1 * s, '1s'],
    [70 * s, '70s'],
    [190 * s, '3m10s'],
    [3 * m, '3m'],
    [70 * m, '70m'],
    [3 * h, '3h'],
    [3 * h + 30 * m, '3h30m'],
    [47 * h, '47h'],
    [49 * h, '2d1h'],
    [8 * d, '8d'],
    [367 * d, '367d'],
    [2 * 365 * d + 20 * d, '2y20d'],
    [9 * 365 * d, '9y'],
    [-5 * s, '0s'],
  ])('%d ms -> %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});
