import { resourcePrefixOf } from './cached-store.js';

describe('resourcePrefixOf', () => {
  test.each([
    ['/registry/core/configmaps/ns/name', '/registry/core/configmaps/'],
    ['/registry/core/configmaps/ns/', '/registry/core/configmaps/'],
    ['/registry/core/namespaces/default', '/registry/core/namespaces/'],
    ['/registry/apps/deployments/', '/registry/apps/deployments/'],
    ['/registry/core/configmaps', undefined],
    ['/registry/core/', undefined],
    ['/registry//configmaps/x', undefined],
    ['/registry/core//x', undefined],
    ['/registryx/core/configmaps/x', undefined],
    ['registry/core/configmaps/x', undefined],
    ['', undefined],
  ])('%p -> %p', (key, want) => {
    expect(resourcePrefixOf(key)).toBe(want);
  });
});
