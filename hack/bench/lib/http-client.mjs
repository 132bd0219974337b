// A small keep-alive HTTPS client for the load generator: one Agent with a fixed socket pool,
// bearer-token or client-certificate auth and the cluster CA, and whole-body responses as Buffers.
import { Agent, request } from 'node:https';

/** Per-request timeout: a stuck request counts as an error instead of hanging a workload. */
const REQUEST_TIMEOUT_MS = 60_000;

export class HttpClient {
  /**
   * @param {{host: string, port: number, ca?: string, token?: string, clientCert?: {cert: string, key: string}, maxSockets?: number, insecure?: boolean}} opts
   * `insecure` skips server certificate checks (a kubeconfig's insecure-skip-tls-verify).
   */
  constructor({ host, port, ca, token, clientCert, maxSockets = 64, insecure = false }) {
    this.host = host;
    this.port = port;
    this.agent = new Agent({ keepAlive: true, maxSockets, ca, ...clientCert, ...(insecure ? { rejectUnauthorized: false } : {}) });
    this.headers = { Accept: 'application/json' };
    if (token) this.headers.Authorization = `Bearer ${token}`;
  }

  /**
   * Sends one request and resolves with the status and the whole body; rejects on network errors
   * and timeouts (never on HTTP error statuses).
   * @param {string} method
   * @param {string} path
   * @param {Buffer | string | undefined} body JSON request body
   * @returns {Promise<{status: number, body: Buffer}>}
   */
  request(method, path, body) {
    return new Promise((resolve, reject) => {
      const headers = { ...this.headers };
      if (body !== undefined) {
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = Buffer.byteLength(body);
      }
      const req = request({ host: this.host, port: this.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path}: timeout`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Like {@link request} but parses a JSON body and throws on a non-2xx status. */
  async json(method, path, body) {
    const res = await this.request(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${method} ${path}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
    }
    return JSON.parse(res.body.toString('utf8'));
  }

  close() {
    this.agent.destroy();
  }
}

/** Creates a namespace through the API; an existing one is fine. */
export async function ensureNamespace(client, name) {
  const res = await client.request(
    'POST',
    '/api/v1/namespaces',
    JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
  );
  if (res.status !== 201 && res.status !== 409) {
    throw new Error(`create namespace ${name}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  }
}

/** The ClusterRole the workload user gets in each bench namespace through a RoleBinding. */
export const WORKLOAD_ROLE = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'bench-workload' },
  rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] }],
};

/**
 * As the admin: creates the namespace and binds the workload ClusterRole to `user` in it, then
 * waits (bounded) until the grant is in effect for `asUser`, since RBAC follows a watch.
 */
export async function prepareNamespace(admin, asUser, name, user) {
  await ensureNamespace(admin, name);
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'bench-workload', namespace: name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: WORKLOAD_ROLE.metadata.name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  };
  const res = await admin.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${name}/rolebindings`, JSON.stringify(binding));
  if (res.status !== 201 && res.status !== 409) {
    throw new Error(`create rolebinding in ${name}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  }
  for (let i = 0; i < 100; i++) {
    const probe = await asUser.request('GET', `/api/v1/namespaces/${name}/configmaps?limit=1`);
    if (probe.status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the workload user was not granted configmaps in ${name} within 5 s`);
}
