import { controllerEnabled } from './index.js';

describe('controllerEnabled (--controllers)', () => {
  test.each<[string, string[], boolean]>([
    ['namespace', ['*'], true],
    ['namespace', ['*', '-namespace'], false],
    ['namespace', ['bootstrapsigner'], false],
    ['namespace', ['namespace'], true],
    ['bootstrapsigner', ['*'], false],
    ['tokencleaner', ['*'], false],
    ['bootstrapsigner', ['*', 'bootstrapsigner'], true],
    ['tokencleaner', ['*', 'bootstrapsigner', 'tokencleaner'], true],
    ['tokencleaner', ['tokencleaner'], true],
    ['tokencleaner', ['*', 'tokencleaner', '-tokencleaner'], false],
    ['bootstrapsigner', [], false],
  ])('%s under %j: %s', (name, flags, on) => {
    expect(controllerEnabled(name, flags)).toBe(on);
  });
});
