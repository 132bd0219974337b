import { labelSelectorFromLabelSelectorObject } from '@cluster/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { RuleWithOperations, Webhook } from '../resources/admissionregistration/types.js';
import type { AdmissionAttributes } from './admission.js';
import { exempt, matchedResource, ruleMatches, webhookMatches, type EquivalentResource } from './webhook-match.js';
import type { WebhookEntry } from './webhook-source.js';

const info = (group: string, resource: string, namespaced = true) => ({ group, version: 'v1', resource, kind: 'X', namespaced }) as unknown as ResourceInfo;
const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  resource: info('', 'pods'),
  subresource: '',
  namespace: 'ns',
  name: 'p',
  object: { metadata: { name: 'p', labels: { app: 'web' } } },
  dryRun: false,
  ...over,
});
const rule = (r: Partial<RuleWithOperations> = {}): RuleWithOperations => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], ...r });

describe('webhook rules', () => {
  test.each<[string, Partial<RuleWithOperations>, Partial<AdmissionAttributes>, boolean]>([
    ['everything', {}, {}, true],
    ['another operation', { operations: ['UPDATE'] }, {}, false],
    ['another group', { apiGroups: ['apps'] }, {}, false],
    ['another version', { apiVersions: ['v2'] }, {}, false],
    ['"*" leaves subresources out', {}, { subresource: 'status' }, false],
    ['res/sub', { resources: ['pods/status'] }, { subresource: 'status' }, true],
    ['*/sub', { resources: ['*/status'] }, { subresource: 'status' }, true],
    ['*/* has all', { resources: ['*/*'] }, { subresource: 'exec' }, true],
    ['res/sub is not the main resource', { resources: ['pods/status'] }, {}, false],
    ['scope Cluster on a namespaced request', { scope: 'Cluster' }, {}, false],
    ['scope Cluster on a cluster-scoped one', { scope: 'Cluster' }, { namespace: '', resource: info('', 'nodes', false) }, true],
    ['scope Namespaced', { scope: 'Namespaced' }, {}, true],
  ])('%s', (_n, r, a, expected) => {
    expect(ruleMatches(rule(r), attrs(a))).toBe(expected);
  });

  test('webhook configurations are exempt', () => {
    expect(exempt(attrs({ resource: info('admissionregistration.k8s.io', 'validatingwebhookconfigurations', false) }))).toBe(true);
    expect(exempt(attrs())).toBe(false);
  });
});

describe('webhook selectors', () => {
  const entry = (w: Partial<Webhook>): WebhookEntry => ({
    configuration: 'c',
    webhook: { rules: [rule()], ...w },
    namespaceSelector: labelSelectorFromLabelSelectorObject(w.namespaceSelector ?? {}),
    objectSelector: labelSelectorFromLabelSelectorObject(w.objectSelector ?? {}),
  });
  const nsLabels = async (name: string): Promise<Record<string, string>> => (name === 'team-a' ? { team: 'a' } : {});

  test('objectSelector matches the object or the old object', async () => {
    const e = entry({ objectSelector: { matchLabels: { app: 'db' } } });
    expect(await webhookMatches(e, attrs(), nsLabels)).toBe(false);
    expect(await webhookMatches(e, attrs({ operation: 'DELETE', object: undefined, oldObject: { metadata: { labels: { app: 'db' } } } }), nsLabels)).toBe(true);
  });

  test('namespaceSelector reads the namespace; cluster-scoped objects always match; a Namespace is its own', async () => {
    const e = entry({ namespaceSelector: { matchLabels: { team: 'a' } } });
    expect(await webhookMatches(e, attrs(), nsLabels)).toBe(false);
    expect(await webhookMatches(e, attrs({ namespace: 'team-a' }), nsLabels)).toBe(true);
    expect(await webhookMatches(e, attrs({ namespace: '', resource: info('', 'nodes', false) }), nsLabels)).toBe(true);
    const ns = attrs({ namespace: '', resource: info('', 'namespaces', false), object: { metadata: { name: 'x', labels: { team: 'b' } } } });
    expect(await webhookMatches(e, ns, nsLabels)).toBe(false);
  });
});

describe('matchPolicy', () => {
  const v1 = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true } as unknown as ResourceInfo;
  const v2 = { ...v1, version: 'v2' } as ResourceInfo;
  const asV1: EquivalentResource = { info: v1, to: (o) => ({ ...o, apiVersion: 'example.com/v1' }), back: (o) => ({ ...o, apiVersion: 'example.com/v2' }) };
  const entry = (matchPolicy: string): WebhookEntry => ({
    configuration: 'c',
    webhook: { matchPolicy, rules: [rule({ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] })] },
    namespaceSelector: labelSelectorFromLabelSelectorObject({}),
    objectSelector: labelSelectorFromLabelSelectorObject({}),
  });
  const equivalents = (info: ResourceInfo) => (info === v2 ? [asV1] : []);

  test('a rule naming the request resource matches it as it is', () => {
    expect(matchedResource(entry('Exact'), attrs({ resource: v1 }), equivalents)).toBeNull();
    expect(matchedResource(entry('Equivalent'), attrs({ resource: v1 }), equivalents)).toBeNull();
  });
  test('Equivalent matches another version of the resource; Exact does not', () => {
    expect(matchedResource(entry('Equivalent'), attrs({ resource: v2 }), equivalents)).toBe(asV1);
    expect(matchedResource(entry('Exact'), attrs({ resource: v2 }), equivalents)).toBeUndefined();
    expect(matchedResource(entry('Equivalent'), attrs({ resource: v2 }))).toBeUndefined();
  });
});
