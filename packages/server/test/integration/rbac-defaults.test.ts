import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestServer } from '../support/test-server.js';

// Upstream's v1.24 default policy as a real replica writes it at start-up, and what it grants.
const dir = mkdtempSync(join(tmpdir(), 'rbac-defaults-test-'));
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(
  tokenFile,
  [
    'bob-token,bob,u1',
    'robot-token,system:serviceaccount:default:robot,u2,"system:serviceaccounts,system:serviceaccounts:default"',
    'nsc-token,system:serviceaccount:cluster-system:namespace-controller,u3,"system:serviceaccounts,system:serviceaccounts:cluster-system"',
  ].join('\n') + '\n',
);
const ts = useTestServer(['--authorization-mode=RBAC', '--token-auth-file', tokenFile]);

const G = 'rbac.authorization.k8s.io';
const RBAC = `/apis/${G}/v1`;
const DEFAULTS = 'labelSelector=k8s.io%2Fbootstrapping%3Drbac-defaults';
const names = (list: { items: Array<{ metadata: { name: string; namespace?: string } }> }) =>
  list.items.map((i) => (i.metadata.namespace ? `${i.metadata.namespace}/${i.metadata.name}` : i.metadata.name));

async function canI(token: string, attrs: Record<string, unknown>): Promise<boolean> {
  const r = await ts().request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    token,
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: attrs },
  });
  expect(r.status).toBe(201);
  return r.json.status.allowed === true;
}

describe('default RBAC objects (upstream v1.24)', () => {
  test('kubectl get clusterroles/clusterrolebindings/roles -A show upstream\'s defaults', async () => {
    const roles = names((await ts().request('GET', `${RBAC}/clusterroles?${DEFAULTS}`)).json);
    expect(roles).toHaveLength(62);
    for (const n of ['system:kube-controller-manager', 'system:kube-dns', 'system:volume-scheduler', 'system:heapster', 'system:kube-aggregator',
      'system:persistent-volume-provisioner', 'system:service-account-issuer-discovery', 'system:controller:namespace-controller',
      'system:controller:root-ca-cert-publisher', 'system:controller:attachdetach-controller']) {
      expect(roles).toContain(n);
    }
    const bindings = (await ts().request('GET', `${RBAC}/clusterrolebindings?${DEFAULTS}`)).json;
    expect(bindings.items).toHaveLength(43);
    const gc = bindings.items.find((b: { metadata: { name: string } }) => b.metadata.name === 'system:controller:generic-garbage-collector');
    expect(gc.subjects).toEqual([{ kind: 'ServiceAccount', name: 'generic-garbage-collector', namespace: 'cluster-system' }]);
    expect(gc.metadata.annotations[`${G}/autoupdate`]).toBe('true');
    expect(names((await ts().request('GET', `${RBAC}/roles?${DEFAULTS}`)).json).sort()).toEqual([
      'cluster-public/system:bootstrap-signer-clusterinfo', 'cluster-public/system:controller:bootstrap-signer',
      'cluster-system/extension-apiserver-authentication-reader', 'cluster-system/system::leader-locking-kube-controller-manager',
      'cluster-system/system::leader-locking-kube-scheduler', 'cluster-system/system:controller:bootstrap-signer',
      'cluster-system/system:controller:cloud-provider', 'cluster-system/system:controller:token-cleaner',
    ]);
    expect((await ts().request('GET', `${RBAC}/rolebindings?${DEFAULTS}`)).json.items).toHaveLength(8);
  });

  test('an unprivileged user and a plain service account are still refused what they were refused', async () => {
    for (const [token, who] of [['bob-token', 'bob'], ['robot-token', 'system:serviceaccount:default:robot']] as const) {
      const all = await ts().request('GET', '/api/v1/secrets', { token });
      expect(all.status).toBe(403);
      expect(all.json.message).toBe(`secrets is forbidden: User "${who}" cannot list resource "secrets" in API group "" at the cluster scope`);
      expect((await ts().request('GET', '/api/v1/namespaces/cluster-system/secrets', { token })).status).toBe(403);
      expect((await ts().request('GET', '/api/v1/namespaces/cluster-system/configmaps/kube-controller-manager', { token })).status).toBe(403);
      expect((await ts().request('GET', '/api/v1/endpoints', { token })).status).toBe(403);
      expect((await ts().request('GET', '/api/v1/nodes', { token })).status).toBe(403);
      expect(await canI(token, { resourceAttributes: { verb: 'escalate', group: G, resource: 'clusterroles' } })).toBe(false);
    }
    expect((await ts().request('GET', '/api/v1/secrets', { token: null })).status).toBe(403);
  });

  test('service accounts alone may read the issuer discovery documents', async () => {
    const jwks = { nonResourceAttributes: { verb: 'get', path: '/openid/v1/jwks' } };
    expect(await canI('robot-token', jwks)).toBe(true);
    expect(await canI('robot-token', { nonResourceAttributes: { verb: 'get', path: '/.well-known/openid-configuration' } })).toBe(true);
    expect(await canI('robot-token', { nonResourceAttributes: { verb: 'post', path: '/openid/v1/jwks' } })).toBe(false);
    expect(await canI('bob-token', jwks)).toBe(false);
  });

  test('a controller\'s service account in cluster-system gets its controller role', async () => {
    expect((await ts().request('GET', '/api/v1/secrets', { token: 'nsc-token' })).status).toBe(200);
    expect(await canI('nsc-token', { resourceAttributes: { verb: 'deletecollection', resource: 'pods', namespace: 'default' } })).toBe(true);
    expect(await canI('nsc-token', { resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'default' } })).toBe(false);
  });
});
