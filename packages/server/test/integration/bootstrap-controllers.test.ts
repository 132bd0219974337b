import { compactVerify } from 'jose';
import { useTestServer } from '../support/test-server.js';

const ts = useTestServer(['--controllers=*,bootstrapsigner,tokencleaner', '--authorization-mode=RBAC', '--enable-bootstrap-token-auth']);

const SECRETS = '/api/v1/namespaces/cluster-system/secrets';
const CLUSTER_INFO = '/api/v1/namespaces/cluster-public/configmaps/cluster-info';
const b64 = (s: string) => Buffer.from(s).toString('base64');

const tokenSecret = (id: string, secret: string, extra: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `bootstrap-token-${id}`, namespace: 'cluster-system' },
  type: 'bootstrap.k8s.io/token',
  data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': secret, ...extra }).map(([k, v]) => [k, b64(v)])),
});

/** Polls `probe` every 100 ms until it returns a value, for at most `timeoutMs`. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SPEC 4.12, as a joining client does it: the payload goes back between the dots, HS256 only. */
async function verifies(jws: string, kubeconfig: string, token: string): Promise<boolean> {
  const [header, , signature] = jws.split('.');
  try {
    await compactVerify(`${header}.${Buffer.from(kubeconfig).toString('base64url')}.${signature}`, new TextEncoder().encode(token), { algorithms: ['HS256'] });
    return true;
  } catch {
    return false;
  }
}

describe('bootstrapsigner and tokencleaner (SPEC 4.12, SPEC 5)', () => {
  test('cluster-info carries the CA and a signature per signing token; anonymous clients may read it', async () => {
    const id = 'abcdef';
    const secret = '0123456789abcdef';
    const expiration = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const created = await ts().request('POST', SECRETS, { body: tokenSecret(id, secret, { 'usage-bootstrap-signing': 'true', expiration }) });
    expect(created.status).toBe(201);
    const data = await eventually('a signature in cluster-info', async () => {
      const r = await ts().request('GET', CLUSTER_INFO);
      const d = r.status === 200 ? (r.json.data as Record<string, string>) : undefined;
      return d?.[`jws-kubeconfig-${id}`] ? d : undefined;
    });
    const kubeconfig = data.kubeconfig!;
    expect(kubeconfig).toContain(`server: ${ts().server.url}`);
    expect(kubeconfig).toContain(`certificate-authority-data: ${b64(ts().server.caPem!)}`);
    expect(await verifies(data[`jws-kubeconfig-${id}`]!, kubeconfig, `${id}.${secret}`)).toBe(true);
    expect(await verifies(data[`jws-kubeconfig-${id}`]!, kubeconfig, `${id}.ffffffffffffffff`)).toBe(false);

    const anonymous = await ts().request('GET', CLUSTER_INFO, { token: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.json.data).toEqual(data);
    // Only that object, only get.
    expect((await ts().request('GET', '/api/v1/namespaces/cluster-public/configmaps', { token: null })).status).toBe(403);
    expect((await ts().request('GET', '/api/v1/namespaces/cluster-system/configmaps/cluster-info', { token: null })).status).toBe(403);

    // Deleting the token removes its signature.
    expect((await ts().request('DELETE', `${SECRETS}/bootstrap-token-${id}`)).status).toBe(200);
    await eventually('the signature to go', async () => {
      const r = await ts().request('GET', CLUSTER_INFO);
      return r.json.data[`jws-kubeconfig-${id}`] === undefined ? true : undefined;
    });
  }, 30_000);

  test('an expired token Secret is deleted by the token cleaner; a live one stays', async () => {
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    expect((await ts().request('POST', SECRETS, { body: tokenSecret('expird', '0123456789abcdef', { expiration: past }) })).status).toBe(201);
    expect((await ts().request('POST', SECRETS, { body: tokenSecret('living', '0123456789abcdef') })).status).toBe(201);
    await eventually('the expired token to be deleted', async () => {
      const r = await ts().request('GET', `${SECRETS}/bootstrap-token-expird`);
      return r.status === 404 ? true : undefined;
    });
    expect((await ts().request('GET', `${SECRETS}/bootstrap-token-living`)).status).toBe(200);
  }, 30_000);
});
