import { builtinControllers, controllerEnabled } from './index.js';

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
    ['csrsigning', ['*'], true],
    ['csrapproving', ['*', '-csrapproving'], false],
    ['csrcleaner', ['*'], true],
    ['serviceaccount', ['*'], true],
    ['serviceaccount', ['*', '-serviceaccount'], false],
    ['root-ca-cert-publisher', ['*'], true],
    ['root-ca-cert-publisher', ['*', '-root-ca-cert-publisher'], false],
  ])('%s under %j: %s', (name, flags, on) => {
    const def = builtinControllers().find((d) => d.name === name)!;
    expect(controllerEnabled(name, flags, def.onByDefault)).toBe(on);
  });
});
