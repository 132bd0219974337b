import type { KubeObject } from '@cluster/apimachinery';
import type { Predicate } from '@cluster/storage';
import type { GenericRegistry } from '../registry/generic-registry.js';
import { podStrategy } from '../resources/core/pods/strategy.js';
import { secretStrategy } from '../resources/core/secrets/strategy.js';
import { coreEventStrategy, eventV1Strategy } from '../resources/core/events/strategy.js';
import { selectionPredicate } from './selectors.js';

// The predicate's attribute form (what a shared-store watch cache selects on, keeping each
// version's labels and field set) must decide exactly as the predicate on the object does.

const registryOf = (strategy: unknown) => ({ strategy }) as unknown as GenericRegistry;
const pods = registryOf(podStrategy('cluster.local'));
const secrets = registryOf(secretStrategy('cluster.local'));
const coreEvents = registryOf(coreEventStrategy);
const eventsV1 = registryOf(eventV1Strategy);

/** The predicate's answer from its attributes only, as selection-attrs.ts computes it. */
function byAttrs(p: Predicate, obj: KubeObject): boolean {
  const a = p.attrs!;
  if (a.labels && !a.labels(obj.metadata.labels ?? {})) return false;
  return a.fields === undefined || a.fields(a.fieldsOf(obj));
}

const podObjs: KubeObject[] = [
  { metadata: { name: 'a', namespace: 'ns1', labels: { app: 'web', tier: 'front' } }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } },
  { metadata: { name: 'b', namespace: 'ns1', labels: { app: 'db' } }, spec: { nodeName: 'n2' } },
  { metadata: { name: 'c', namespace: 'ns2' }, spec: {} },
  { metadata: { name: 'd', namespace: 'ns2', labels: {} }, spec: { nodeName: '' }, status: { phase: 'Pending' } },
] as KubeObject[];

describe('selectionPredicate attributes', () => {
  test.each([
    ['app=web', ''],
    ['app!=web', ''],
    ['app in (web,db)', ''],
    ['app notin (db)', ''],
    ['tier', ''],
    ['!tier', ''],
    ['', 'spec.nodeName=n1'],
    ['', 'spec.nodeName='],
    ['', 'spec.nodeName!=n1,metadata.namespace=ns2'],
    ['', 'metadata.name=c'],
    ['', 'status.phase=Running'],
    ['app', 'metadata.namespace!=ns2'],
  ])('pods %j %j: attributes decide as the object does', (labels, fields) => {
    const p = selectionPredicate(pods, labels, fields)!;
    for (const o of podObjs) expect([o.metadata.name, byAttrs(p, o)]).toEqual([o.metadata.name, p(o)]);
    expect(p.attrs!.labels === undefined).toBe(labels === '');
    expect(p.attrs!.fields === undefined).toBe(fields === '');
  });

  test('secrets by type, events by their own fields per version', () => {
    const s = selectionPredicate(secrets, '', 'type=kubernetes.io/tls')!;
    const tls = { metadata: { name: 'x', namespace: 'n' }, type: 'kubernetes.io/tls' } as KubeObject;
    const opaque = { metadata: { name: 'y', namespace: 'n' }, type: 'Opaque' } as KubeObject;
    expect([byAttrs(s, tls), byAttrs(s, opaque)]).toEqual([true, false]);
    const ev = { metadata: { name: 'e', namespace: 'n' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', type: 'Normal' } as KubeObject;
    const core = selectionPredicate(coreEvents, '', 'involvedObject.name=p,reason=Started')!;
    expect([core(ev), byAttrs(core, ev)]).toEqual([true, true]);
    // events/v1 names the same fields its own way: another fields function, so caches keep them apart.
    const v1 = selectionPredicate(eventsV1, '', 'reason=Started')!;
    expect(v1.attrs!.fieldsOf).not.toBe(core.attrs!.fieldsOf);
  });

  test('one fields function per registry, whatever the selection', () => {
    const a = selectionPredicate(pods, 'app=web', '')!;
    const b = selectionPredicate(pods, '', 'spec.nodeName=n1')!;
    expect(a.attrs!.fieldsOf).toBe(b.attrs!.fieldsOf);
    expect(selectionPredicate(pods, '', '')).toBeUndefined();
  });
});
