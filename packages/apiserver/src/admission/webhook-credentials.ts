import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { CredentialsFor, WebhookCredentials } from './webhook-call.js';

/** Credentials of the two webhook plugins, as --admission-control-config-file configures them. */
export interface WebhookPluginCredentials {
  mutating?: CredentialsFor;
  validating?: CredentialsFor;
}

type Json = Record<string, unknown>;

const PLUGINS = { MutatingAdmissionWebhook: 'mutating', ValidatingAdmissionWebhook: 'validating' } as const;
const CONFIG_KINDS = ['WebhookAdmissionConfiguration', 'WebhookAdmission'];

function readStructured(path: string, what: string): Json {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`${what} ${path}: ${(e as Error).message}`);
  }
  const value: unknown = parseYaml(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} ${path}: not an object`);
  return value as Json;
}

/**
 * Reads upstream's AdmissionConfiguration (apiserver.config.k8s.io/v1): for each of the webhook
 * plugins, a WebhookAdmissionConfiguration (inline, or in the file `path` names, relative to this
 * one) whose `kubeConfigFile` (an absolute path) holds a kubeconfig of credentials, one user per
 * webhook host. Other plugins' entries are accepted and ignored.
 * @throws Error naming the file and field when the configuration is unusable (the server does not start).
 */
export function loadWebhookCredentials(configFile: string): WebhookPluginCredentials {
  const config = readStructured(configFile, 'admission control configuration');
  if (config['kind'] !== 'AdmissionConfiguration') throw new Error(`admission control configuration ${configFile}: kind must be AdmissionConfiguration`);
  const out: WebhookPluginCredentials = {};
  const plugins = config['plugins'];
  if (plugins !== undefined && !Array.isArray(plugins)) throw new Error(`admission control configuration ${configFile}: plugins must be a list`);
  for (const p of (plugins ?? []) as Json[]) {
    const which = PLUGINS[p['name'] as keyof typeof PLUGINS];
    if (!which) continue;
    let pluginConfig = p['configuration'] as Json | undefined;
    if (!pluginConfig && typeof p['path'] === 'string') {
      const path = isAbsolute(p['path']) ? p['path'] : resolve(dirname(configFile), p['path']);
      pluginConfig = readStructured(path, `${p['name'] as string} configuration`);
    }
    if (!pluginConfig) continue;
    if (!CONFIG_KINDS.includes(pluginConfig['kind'] as string)) throw new Error(`${p['name'] as string} configuration: kind must be WebhookAdmissionConfiguration`);
    const kubeConfigFile = pluginConfig['kubeConfigFile'];
    if (typeof kubeConfigFile !== 'string' || kubeConfigFile === '') continue;
    if (!isAbsolute(kubeConfigFile)) throw new Error(`${p['name'] as string} configuration: kubeConfigFile ${JSON.stringify(kubeConfigFile)} must be an absolute file path`);
    out[which] = credentialsFromKubeconfig(kubeConfigFile);
  }
  return out;
}

function fileOrData(base: string, user: Json, file: string, data: string): Buffer | undefined {
  if (typeof user[data] === 'string') return Buffer.from(user[data] as string, 'base64');
  if (typeof user[file] === 'string') {
    const p = user[file] as string;
    return readFileSync(isAbsolute(p) ? p : resolve(base, p));
  }
  return undefined;
}

/**
 * The users of a kubeconfig as credentials by webhook host, looked up as upstream's
 * authentication info resolver does: the exact `host:port`, then `*.`-prefixed parent domains,
 * then both again without a default port 443, then `*`; otherwise none.
 */
export function credentialsFromKubeconfig(path: string): CredentialsFor {
  const kc = readStructured(path, 'webhook kubeconfig');
  const base = dirname(path);
  const users = new Map<string, WebhookCredentials>();
  for (const entry of (kc['users'] ?? []) as Json[]) {
    const name = entry['name'];
    const user = (entry['user'] ?? {}) as Json;
    if (typeof name !== 'string') continue;
    const c: WebhookCredentials = {};
    const cert = fileOrData(base, user, 'client-certificate', 'client-certificate-data');
    const key = fileOrData(base, user, 'client-key', 'client-key-data');
    if (cert) c.cert = cert;
    if (key) c.key = key;
    if (typeof user['token'] === 'string') c.token = user['token'];
    else if (typeof user['tokenFile'] === 'string') c.token = readFileSync(isAbsolute(user['tokenFile']) ? user['tokenFile'] : resolve(base, user['tokenFile']), 'utf8').trim();
    if (typeof user['username'] === 'string') {
      c.username = user['username'];
      c.password = typeof user['password'] === 'string' ? user['password'] : '';
    }
    if ((c.cert === undefined) !== (c.key === undefined)) throw new Error(`webhook kubeconfig ${path}: user ${name} needs both a client certificate and its key`);
    users.set(name, c);
  }
  const lookup = (target: string): WebhookCredentials | undefined => {
    const exact = users.get(target);
    if (exact) return exact;
    const steps = target.split('.');
    for (let i = 1; i < steps.length; i++) {
      const wildcard = users.get(`*.${steps.slice(i).join('.')}`);
      if (wildcard) return wildcard;
    }
    return undefined;
  };
  return (hostPort) => {
    const found = lookup(hostPort);
    if (found) return found;
    const m = /^(.*):443$/.exec(hostPort);
    if (m) {
      const withoutPort = lookup(m[1]!);
      if (withoutPort) return withoutPort;
    }
    return users.get('*');
  };
}
