import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** Where and how the token webhook is called, from its kubeconfig-format file (SPEC 5.2). */
export interface WebhookConfig {
  server: string;
  /** PEM of the CA the webhook's serving certificate must chain to; absent: the host's roots. */
  caPem?: string;
  insecureSkipTlsVerify?: boolean;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
}

interface KubeconfigFile {
  clusters?: { cluster?: Record<string, unknown> }[];
  users?: { user?: Record<string, unknown> }[];
}

/**
 * Reads the webhook's kubeconfig (`clusters[0].cluster` and `users[0].user`): `server`,
 * `certificate-authority(-data)`, `insecure-skip-tls-verify`, `client-certificate(-data)`,
 * `client-key(-data)`, `token`. File paths are relative to the config file; `readFile` reads
 * them. Pure but for `readFile`.
 * @throws Error naming what is missing or wrong, for a start-up message.
 */
export function parseWebhookConfig(text: string, path: string, readFile: (p: string) => string): WebhookConfig {
  let doc: KubeconfigFile;
  try {
    doc = (parseYaml(text) ?? {}) as KubeconfigFile;
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  const cluster = doc.clusters?.[0]?.cluster;
  if (!cluster) throw new Error(`${path}: no cluster (clusters[0].cluster)`);
  const server = cluster['server'];
  if (typeof server !== 'string' || !/^https?:\/\//.test(server)) throw new Error(`${path}: clusters[0].cluster.server must be an http(s) URL`);
  const user = doc.users?.[0]?.user ?? {};
  const resolve = (p: string) => (isAbsolute(p) ? p : join(dirname(path), p));
  const pem = (obj: Record<string, unknown>, dataKey: string, fileKey: string): string | undefined => {
    const data = obj[dataKey];
    if (typeof data === 'string' && data) return Buffer.from(data, 'base64').toString('utf8');
    const file = obj[fileKey];
    if (typeof file === 'string' && file) return readFile(resolve(file));
    return undefined;
  };
  const config: WebhookConfig = { server };
  const ca = pem(cluster, 'certificate-authority-data', 'certificate-authority');
  if (ca) config.caPem = ca;
  if (cluster['insecure-skip-tls-verify'] === true) config.insecureSkipTlsVerify = true;
  const cert = pem(user, 'client-certificate-data', 'client-certificate');
  const key = pem(user, 'client-key-data', 'client-key');
  if ((cert === undefined) !== (key === undefined)) throw new Error(`${path}: users[0].user needs both a client certificate and its key`);
  if (cert) config.clientCertPem = cert;
  if (key) config.clientKeyPem = key;
  if (typeof user['token'] === 'string' && user['token']) config.token = user['token'];
  return config;
}
