import { parseFlags } from './flags.js';
import { unsupportedFlags } from './unsupported-flags.js';

describe('unsupportedFlags', () => {
  test('nothing set, nothing refused', () => {
    expect(unsupportedFlags(parseFlags([]))).toEqual([]);
    expect(unsupportedFlags(parseFlags(['--secure-port=7443', '--token-auth-file=/x']))).toEqual([]);
    expect(unsupportedFlags(parseFlags(['--feature-gates=ConsistentListFromCache=false']))).toEqual([]);
    expect(unsupportedFlags(parseFlags(['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=kube']))).toEqual([]);
  });
  test.each([
    [['--etcd-prefix=/other'], ['--etcd-prefix']],
  ])('%p is refused', (args, want) => {
    expect(unsupportedFlags(parseFlags(args))).toEqual(want);
  });
});
