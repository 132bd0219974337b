import { flowControlBootstrap, type FlowSchema, type PriorityLevelConfiguration } from '@cluster/apimachinery';
import { autoUpdates, planFlowControlWrites } from './reconcile.js';

const b = flowControlBootstrap('k8s.io');
const AV = 'flowcontrol.apiserver.k8s.io/v1beta2';
const stored = <T extends { metadata: object }>(o: T, extra: object = {}): T => ({ ...structuredClone(o), metadata: { ...structuredClone(o.metadata), generation: 1, uid: 'u', ...extra } });
const allLevels = () => [...b.mandatoryPriorityLevels, ...b.suggestedPriorityLevels].map((p) => stored(p));
const allSchemas = () =>
  [...b.mandatoryFlowSchemas, ...b.suggestedFlowSchemas].map((f) => {
    const s = stored(f);
    s.status = { conditions: [{ type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${f.spec!.priorityLevelConfiguration!.name}" and it exists`, lastTransitionTime: 't0' }] };
    return s;
  });
const plan = (flowSchemas: FlowSchema[], priorityLevels: PriorityLevelConfiguration[]) => planFlowControlWrites({ bootstrap: b, flowSchemas, priorityLevels, now: 'now' }, AV);

describe('flow-control configuration keeper', () => {
  test('an empty store gets every mandatory and suggested object, annotated to auto-update', () => {
    const writes = plan([], []);
    expect(writes.filter((w) => w.op === 'create' && w.resource === 'prioritylevelconfigurations').map((w) => w.object.metadata.name).sort()).toEqual(
      ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low'],
    );
    expect(writes.filter((w) => w.resource === 'flowschemas')).toHaveLength(12);
    for (const w of writes) {
      expect(w.object.apiVersion).toBe(AV);
      expect(w.object.metadata.annotations).toEqual({ 'apf.kubernetes.io/autoupdate-spec': 'true' });
    }
  });

  test('an up-to-date store needs no write', () => {
    expect(plan(allSchemas(), allLevels())).toEqual([]);
  });

  test('a drifted suggested spec is restored while the annotation is true, left alone when false', () => {
    const levels = allLevels();
    levels.find((l) => l.metadata.name === 'workload-low')!.spec!.limited!.assuredConcurrencyShares = 3;
    const writes = plan(allSchemas(), levels);
    expect(writes.map((w) => [w.op, w.object.metadata.name])).toEqual([['update', 'workload-low']]);
    expect((writes[0]!.object as PriorityLevelConfiguration).spec!.limited!.assuredConcurrencyShares).toBe(100);
    levels.find((l) => l.metadata.name === 'workload-low')!.metadata.annotations = { 'apf.kubernetes.io/autoupdate-spec': 'false' };
    expect(plan(allSchemas(), levels)).toEqual([]);
  });

  test('mandatory objects are restored even when the annotation says false', () => {
    const levels = allLevels();
    levels.find((l) => l.metadata.name === 'catch-all')!.metadata.annotations = { 'apf.kubernetes.io/autoupdate-spec': 'false' };
    const writes = plan(allSchemas(), levels);
    expect(writes.map((w) => [w.op, w.object.metadata.name, w.object.metadata.annotations])).toEqual([['update', 'catch-all', { 'apf.kubernetes.io/autoupdate-spec': 'true' }]]);
  });

  test('without the annotation, only an object never changed (generation 1) auto-updates', () => {
    expect(autoUpdates({ metadata: { generation: 1 } })).toBe(true);
    expect(autoUpdates({ metadata: { generation: 3 } })).toBe(false);
    expect(autoUpdates({ metadata: { generation: 3, annotations: { 'apf.kubernetes.io/autoupdate-spec': 'TRUE' } } })).toBe(true);
  });

  test('a schema naming a missing level is Dangling; the condition flips back when the level exists', () => {
    const mine: FlowSchema = { metadata: { name: 'mine', uid: 'm' }, spec: { priorityLevelConfiguration: { name: 'nope' }, matchingPrecedence: 100 } };
    const writes = plan([...allSchemas(), mine], allLevels());
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({ op: 'status', object: { status: { conditions: [{ type: 'Dangling', status: 'True', reason: 'NotFound', lastTransitionTime: 'now' }] } } });
    const dangling = writes[0]!.object as FlowSchema;
    const nope = stored({ metadata: { name: 'nope' }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } } as PriorityLevelConfiguration);
    const again = plan([...allSchemas(), dangling], [...allLevels(), nope]);
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ op: 'status', object: { status: { conditions: [{ type: 'Dangling', status: 'False', reason: 'Found' }] } } });
  });

  test('an unannotated suggested object changed since creation is annotated "false" and keeps its spec', () => {
    const levels = allLevels();
    const low = levels.find((l) => l.metadata.name === 'workload-low')!;
    low.metadata.annotations = {};
    low.metadata.generation = 3;
    low.spec!.limited!.assuredConcurrencyShares = 3;
    const writes = plan(allSchemas(), levels);
    expect(writes.map((w) => [w.op, w.object.metadata.name, w.object.metadata.annotations])).toEqual([['update', 'workload-low', { 'apf.kubernetes.io/autoupdate-spec': 'false' }]]);
    expect((writes[0]!.object as PriorityLevelConfiguration).spec!.limited!.assuredConcurrencyShares).toBe(3);
  });

  test('objects annotated "true" that the bootstrap does not know are deleted; unannotated ones stay', () => {
    const stale = stored({ metadata: { name: 'old-level', annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true' } }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } } as PriorityLevelConfiguration);
    const mine = stored({ metadata: { name: 'my-level' }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } } as PriorityLevelConfiguration);
    const user: FlowSchema = {
      metadata: { name: 'uses-old', uid: 'x' },
      spec: { priorityLevelConfiguration: { name: 'old-level' }, matchingPrecedence: 100 },
      status: { conditions: [{ type: 'Dangling', status: 'False', reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "old-level" and it exists', lastTransitionTime: 't0' }] },
    };
    const staleSchema = stored({ metadata: { name: 'old-schema', annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true' } }, spec: { priorityLevelConfiguration: { name: 'nope' }, matchingPrecedence: 100 } } as FlowSchema);
    const writes = plan([...allSchemas(), user, staleSchema], [...allLevels(), stale, mine]);
    expect(writes.map((w) => [w.op, w.resource, w.object.metadata.name])).toEqual([
      ['delete', 'prioritylevelconfigurations', 'old-level'],
      ['delete', 'flowschemas', 'old-schema'],
      ['status', 'flowschemas', 'uses-old'],
    ]);
    expect(writes[2]).toMatchObject({ object: { status: { conditions: [{ type: 'Dangling', status: 'True' }] } } });
  });
});
