// Reads what the load generator needs from a kubeconfig (`make bench KUBECONFIG=<file>`): the
// current context's server URL and CA, and its user's bearer token or client certificate.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

/** A field that is inline base64 (`<name>-data`) or a file path relative to the kubeconfig. */
async function inlineOrFile(entry, field, baseDir) {
  const data = entry?.[`${field}-data`];
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  const path = entry?.[field];
  if (path) return readFile(isAbsolute(path) ? path : join(baseDir, path), 'utf8');
  return undefined;
}

function named(list, name, kind) {
  const hit = (list ?? []).find((e) => e?.name === name);
  if (!hit) throw new Error(`kubeconfig: ${kind} ${JSON.stringify(name)} not found`);
  return hit;
}

/**
 * The current context of the kubeconfig at `path` as connection settings:
 * `{ url, host, port, ca?, insecure, token?, clientCert?: {cert, key}, user }`. Throws with a
 * one-line reason when the file has no usable context, or the user authenticates in a way the
 * load generator does not speak (exec plugins, auth providers, basic auth).
 */
export async function loadKubeconfig(path) {
  const config = parse(await readFile(path, 'utf8')) ?? {};
  const baseDir = dirname(path);
  const contextName = config['current-context'];
  if (!contextName) throw new Error('kubeconfig: no current-context');
  const context = named(config.contexts, contextName, 'context').context ?? {};
  const cluster = named(config.clusters, context.cluster, 'cluster').cluster ?? {};
  const userEntry = context.user ? named(config.users, context.user, 'user').user ?? {} : {};
  if (!cluster.server) throw new Error(`kubeconfig: cluster ${JSON.stringify(context.cluster)} has no server`);
  const url = new URL(cluster.server);
  if (url.protocol !== 'https:') throw new Error(`kubeconfig: the load generator speaks HTTPS only, server is ${cluster.server}`);
  if (userEntry.exec || userEntry['auth-provider'] || userEntry.username) {
    throw new Error('kubeconfig: only bearer tokens and client certificates are supported by the load generator');
  }
  let token = userEntry.token;
  if (!token && userEntry.tokenFile) token = (await readFile(isAbsolute(userEntry.tokenFile) ? userEntry.tokenFile : join(baseDir, userEntry.tokenFile), 'utf8')).trim();
  const cert = await inlineOrFile(userEntry, 'client-certificate', baseDir);
  const key = await inlineOrFile(userEntry, 'client-key', baseDir);
  if ((cert === undefined) !== (key === undefined)) throw new Error('kubeconfig: a client certificate needs both certificate and key');
  return {
    url: url.origin,
    host: url.hostname,
    port: Number(url.port || 443),
    ca: await inlineOrFile(cluster, 'certificate-authority', baseDir),
    insecure: cluster['insecure-skip-tls-verify'] === true,
    token,
    clientCert: cert !== undefined ? { cert, key } : undefined,
    user: context.user ?? '',
  };
}
