import { compactRules, compactString, covers } from './covers.js';
import type { PolicyRule } from './types.js';

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };

describe('covers (upstream Covers)', () => {
  test.each<[string, PolicyRule[], PolicyRule[], boolean]>([
    ['same rule', [r(['get'], [''], ['pods'])], [r(['get'], [''], ['pods'])], true],
    ['split across owner rules', [r(['get'], [''], ['pods']), r(['list'], [''], ['pods'])], [r(['get', 'list'], [''], ['pods'])], true],
    ['missing verb', [r(['get'], [''], ['pods'])], [r(['get', 'list'], [''], ['pods'])], false],
    ['star verbs', [r(['*'], [''], ['pods'])], [r(['escalate'], [''], ['pods'])], true],
    ['star groups', [r(['get'], ['*'], ['pods'])], [r(['get'], ['apps', ''], ['pods'])], true],
    ['star resources', [r(['get'], [''], ['*'])], [r(['get'], [''], ['pods/log'])], true],
    ['*/sub covers x/sub', [r(['get'], [''], ['*/status'])], [r(['get'], [''], ['pods/status'])], true],
    ['*/sub does not cover x', [r(['get'], [''], ['*/status'])], [r(['get'], [''], ['pods'])], false],
    ['names: owner unrestricted', [r(['get'], [''], ['cm'])], [r(['get'], [''], ['cm'], ['a'])], true],
    ['names: owner restricted, requested subset', [r(['get'], [''], ['cm'], ['a', 'b'])], [r(['get'], [''], ['cm'], ['a'])], true],
    ['names: owner restricted, requested unrestricted', [r(['get'], [''], ['cm'], ['a'])], [r(['get'], [''], ['cm'])], false],
    ['urls exact', [{ verbs: ['get'], nonResourceURLs: ['/a'] }], [{ verbs: ['get'], nonResourceURLs: ['/a'] }], true],
    ['urls prefix', [{ verbs: ['get'], nonResourceURLs: ['/a/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/a/b'] }], true],
    ['urls not covered by resources', [r(['*'], ['*'], ['*'])], [{ verbs: ['get'], nonResourceURLs: ['/a'] }], false],
    ['nothing owned', [], [r(['get'], [''], ['pods'])], false],
    ['nothing requested', [], [], true],
  ])('%s', (_name, owner, requested, want) => {
    expect(covers(owner, requested).covered).toBe(want);
  });

  test('missing rules are broken down, then compacted per resource', () => {
    const { missing } = covers([r(['get'], [''], ['configmaps'])], [r(['get', 'list'], [''], ['configmaps', 'secrets'])]);
    expect(missing).toEqual([r(['list'], [''], ['configmaps']), r(['get'], [''], ['secrets']), r(['list'], [''], ['secrets'])]);
    expect(compactRules(missing).map(compactString)).toEqual([
      '{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    ]);
  });

  test('compactString writes every part in upstream order', () => {
    expect(compactString({ verbs: ['get'], apiGroups: ['a'], resources: ['r'], resourceNames: ['n'] })).toBe(
      '{APIGroups:["a"], Resources:["r"], ResourceNames:["n"], Verbs:["get"]}',
    );
    expect(compactString({ verbs: ['get'], nonResourceURLs: ['/x'] })).toBe('{NonResourceURLs:["/x"], Verbs:["get"]}');
  });
});
