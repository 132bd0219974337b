import { progressRequestsAreSafe } from './raw-watch.js';

describe('progressRequestsAreSafe', () => {
  test.each([
    ['3.4.23', false],
    ['3.4.30', false],
    ['3.4.31', true],
    ['3.5.12', false],
    ['3.5.13', true],
    ['3.6.0', true],
    ['4.0.0', true],
    ['3.3.27', false],
    ['garbage', false],
  ])('%s -> %s', (version, safe) => {
    expect(progressRequestsAreSafe(version)).toBe(safe);
  });
});
