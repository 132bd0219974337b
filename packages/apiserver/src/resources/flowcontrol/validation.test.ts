import { flowControlBootstrap, type FlowSchema, type PriorityLevelConfiguration } from '@cluster/apimachinery';
import { flowSchemaStrategy, priorityLevelStrategy } from './strategy.js';
import { validateNonResourceURLPath } from './validation.js';

const fsStrategy = flowSchemaStrategy('k8s.io');
const plStrategy = priorityLevelStrategy('k8s.io');

const goodFs = (): FlowSchema => ({
  metadata: { name: 'mine' },
  spec: {
    priorityLevelConfiguration: { name: 'global-default' },
    matchingPrecedence: 500,
    distinguisherMethod: { type: 'ByUser' },
    rules: [{ subjects: [{ kind: 'User', user: { name: 'bob' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] }],
  },
});
const goodPl = (): PriorityLevelConfiguration => ({
  metadata: { name: 'mine' },
  spec: { type: 'Limited', limited: { assuredConcurrencyShares: 5, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 10 } } } },
});
const fields = (errs: Array<{ field: string }>) => errs.map((e) => e.field);

describe('FlowSchema validation (upstream ValidateFlowSchema)', () => {
  test('a good schema and every bootstrap schema are valid', () => {
    expect(fsStrategy.validate(goodFs())).toEqual([]);
    const b = flowControlBootstrap('k8s.io');
    for (const fs of [...b.mandatoryFlowSchemas, ...b.suggestedFlowSchemas]) expect([fs.metadata.name, fsStrategy.validate(structuredClone(fs))]).toEqual([fs.metadata.name, []]);
  });

  test.each<[string, (fs: FlowSchema) => void, string[]]>([
    ['precedence 0', (fs) => (fs.spec!.matchingPrecedence = 0), ['spec.matchingPrecedence']],
    ['precedence too big', (fs) => (fs.spec!.matchingPrecedence = 10001), ['spec.matchingPrecedence']],
    ['precedence 1 not exempt', (fs) => (fs.spec!.matchingPrecedence = 1), ['spec.matchingPrecedence']],
    ['bad distinguisher', (fs) => (fs.spec!.distinguisherMethod = { type: 'ByColour' }), ['spec.distinguisherMethod.type']],
    ['no level', (fs) => (fs.spec!.priorityLevelConfiguration = {}), ['spec.priorityLevelConfiguration.name']],
    ['bad level name', (fs) => (fs.spec!.priorityLevelConfiguration = { name: 'Bad_Name' }), ['spec.priorityLevelConfiguration.name']],
    ['no subjects', (fs) => (fs.spec!.rules![0]!.subjects = []), ['spec.rules[0].subjects']],
    ['no rules', (fs) => (fs.spec!.rules![0]!.resourceRules = []), ['spec.rules[0]']],
    ['bad subject kind', (fs) => (fs.spec!.rules![0]!.subjects = [{ kind: 'Robot' }]), ['spec.rules[0].subjects[0].kind']],
    ['user without user', (fs) => (fs.spec!.rules![0]!.subjects = [{ kind: 'User' }]), ['spec.rules[0].subjects[0].user']],
    ['user with group', (fs) => (fs.spec!.rules![0]!.subjects = [{ kind: 'User', user: { name: 'a' }, group: { name: 'g' } }]), ['spec.rules[0].subjects[0].group']],
    ['sa without namespace', (fs) => (fs.spec!.rules![0]!.subjects = [{ kind: 'ServiceAccount', serviceAccount: { name: 'x' } }]), ['spec.rules[0].subjects[0].serviceAccount.namespace']],
    ['bad verb', (fs) => (fs.spec!.rules![0]!.resourceRules![0]!.verbs = ['fly']), ['spec.rules[0].resourceRules[0].verbs']],
    ['wildcard verb plus', (fs) => (fs.spec!.rules![0]!.resourceRules![0]!.verbs = ['*', 'get']), ['spec.rules[0].resourceRules[0].verbs']],
    ['no namespaces', (fs) => (fs.spec!.rules![0]!.resourceRules![0]!.namespaces = []), ['spec.rules[0].resourceRules[0].namespaces']],
    ['bad namespace', (fs) => (fs.spec!.rules![0]!.resourceRules![0]!.namespaces = ['Not_OK']), ['spec.rules[0].resourceRules[0].namespaces[0]']],
    ['bad url', (fs) => (fs.spec!.rules![0]!.nonResourceRules = [{ verbs: ['get'], nonResourceURLs: ['healthz'] }]), ['spec.rules[0].nonResourceRules[0].nonResourceURLs[0]']],
  ])('%s', (_name, change, want) => {
    const fs = goodFs();
    change(fs);
    expect(fields(fsStrategy.validate(fs))).toEqual(want);
  });

  test('the mandatory schemas have fixed specs', () => {
    const catchAll = structuredClone(flowControlBootstrap('k8s.io').mandatoryFlowSchemas.find((f) => f.metadata.name === 'catch-all')!);
    catchAll.spec!.matchingPrecedence = 9999;
    const errs = fsStrategy.validate(catchAll);
    expect(errs.map((e) => [e.field, e.detail])).toEqual([['spec', "spec of 'catch-all' must equal the fixed value"]]);
  });

  test.each([
    ['/', true],
    ['/healthz', true],
    ['/healthz/*', true],
    ['', false],
    ['healthz', false],
    ['/a b', false],
    ['/a//b', false],
    ['/a*', false],
    ['/a/*/b', false],
  ])('non-resource URL %j valid: %s', (url, ok) => expect(validateNonResourceURLPath(url, 'f').length === 0).toBe(ok));
});

describe('PriorityLevelConfiguration validation', () => {
  test('a good level and every bootstrap level are valid', () => {
    expect(plStrategy.validate(goodPl())).toEqual([]);
    const b = flowControlBootstrap('k8s.io');
    for (const pl of [...b.mandatoryPriorityLevels, ...b.suggestedPriorityLevels]) expect([pl.metadata.name, plStrategy.validate(structuredClone(pl))]).toEqual([pl.metadata.name, []]);
  });

  test.each<[string, (pl: PriorityLevelConfiguration) => void, string[]]>([
    ['exempt type for another name', (pl) => (pl.spec = { type: 'Exempt' }), ['spec.type']],
    ['unknown type', (pl) => (pl.spec!.type = 'Sometimes'), ['spec.type']],
    ['limited missing', (pl) => (pl.spec = { type: 'Limited' }), ['spec.limited']],
    ['shares 0', (pl) => (pl.spec!.limited!.assuredConcurrencyShares = -2), ['spec.limited.assuredConcurrencyShares']],
    ['bad response', (pl) => (pl.spec!.limited!.limitResponse = { type: 'Drop' }), ['spec.limited.limitResponse.type']],
    ['reject with queuing', (pl) => (pl.spec!.limited!.limitResponse!.type = 'Reject'), ['spec.limited.limitResponse.queuing']],
    ['queue without queuing', (pl) => (pl.spec!.limited!.limitResponse = { type: 'Queue' }), ['spec.limited.limitResponse.queuing']],
    ['hand over queues', (pl) => (pl.spec!.limited!.limitResponse!.queuing!.handSize = 17), ['spec.limited.limitResponse.queuing.handSize']],
    ['too much entropy', (pl) => (pl.spec!.limited!.limitResponse!.queuing = { queues: 10_000, handSize: 10, queueLengthLimit: 1 }), ['spec.limited.limitResponse.queuing.handSize']],
    ['negative queue length', (pl) => (pl.spec!.limited!.limitResponse!.queuing!.queueLengthLimit = -1), ['spec.limited.limitResponse.queuing.queueLengthLimit']],
  ])('%s', (_name, change, want) => {
    const pl = goodPl();
    change(pl);
    expect(fields(plStrategy.validate(pl))).toEqual(want);
  });

  test('defaults: shares 30, queues 64, hand 8, length 50; precedence 1000', () => {
    const pl: PriorityLevelConfiguration = { metadata: { name: 'x' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } };
    plStrategy.prepareForCreate(pl);
    expect(pl.spec!.limited).toEqual({ assuredConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } });
    const fs: FlowSchema = { metadata: { name: 'x' }, spec: {} };
    fsStrategy.prepareForCreate(fs);
    expect(fs.spec!.matchingPrecedence).toBe(1000);
  });
});
