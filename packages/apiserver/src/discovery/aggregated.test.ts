import type { JsonObject } from '@cluster/apimachinery';
import { fixtureResources } from '../openapi/testing-fixtures.js';
import { aggregatedDiscovery } from './aggregated.js';
import { groupsFromResources } from './documents.js';

const resources = fixtureResources('example.org');

describe('aggregatedDiscovery', () => {
  test('core group list for /api', () => {
    const doc = aggregatedDiscovery([{ name: '', versions: ['v1'] }], resources, 'example.org');
    expect(doc).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.example.org/v2', metadata: {} });
    const items = doc['items'] as JsonObject[];
    expect(items).toHaveLength(1);
    expect(items[0]?.['metadata']).toEqual({});
    const v1 = (items[0]?.['versions'] as JsonObject[])[0] as JsonObject;
    expect(v1['version']).toBe('v1');
    expect(v1['freshness']).toBe('Current');
    const sa = (v1['resources'] as JsonObject[]).find((r) => r['resource'] === 'serviceaccounts');
    expect(sa).toEqual({
      resource: 'serviceaccounts',
      responseKind: { group: '', version: '', kind: 'ServiceAccount' },
      scope: 'Namespaced',
      singularResource: 'serviceaccount',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['sa'],
      subresources: [
        { subresource: 'token', responseKind: { group: 'authentication.example.org', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] },
      ],
    });
  });

  test('named groups for /apis; versions without resources are dropped', () => {
    const groups = [...groupsFromResources(resources), { name: 'empty.example.org', versions: ['v1'] }];
    const items = aggregatedDiscovery(groups, resources, 'example.org')['items'] as JsonObject[];
    expect(items.map((i) => i['metadata'])).toEqual([
      { name: 'certificates.example.org' },
      { name: 'authentication.example.org' },
      { name: 'empty.example.org' },
    ]);
    expect(items[2]?.['versions']).toEqual([]);
    const csr = ((items[0]?.['versions'] as JsonObject[])[0]?.['resources'] as JsonObject[])[0];
    expect(csr).toMatchObject({ resource: 'certificatesigningrequests', scope: 'Cluster' });
  });
});
