import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { AvailabilitySettings } from '@cluster/controllers';
import type { KubeObject } from '@cluster/apimachinery';
import { EXTENSION_AUTH_CONFIGMAP, EXTENSION_AUTH_NAMESPACE, startLocalApiServices, type AggregationConfig, type ApiServer, type ProxyClientCertificate } from '@cluster/apiserver';
import { createCa, issueClientCertificate } from './certs.js';
import type { ServerOptions } from './flags.js';
import { writeAtomic } from './write-atomic.js';

/** kubeadm's names for the front proxy's CA and client certificate. */
const FRONT_PROXY_CA = 'front-proxy-ca';
const FRONT_PROXY_CLIENT = 'front-proxy-client';

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * The embedded default's front proxy, as kubeadm sets one up: when none of --proxy-client-cert-file,
 * --tls-cert-file and --requestheader-client-ca-file is given, a front-proxy CA and a client
 * certificate it signed (CN `front-proxy-client`) are generated once in the cert dir; the
 * aggregator presents that certificate, and this server trusts the same CA for the authenticating
 * proxy with upstream's header names (which extension API servers then read from
 * `cluster-system/extension-apiserver-authentication`). Returns the options to run with.
 * Throws when only one of --proxy-client-cert-file/--proxy-client-key-file is given.
 */
export async function withFrontProxyDefaults(opts: ServerOptions, dataDir: string): Promise<ServerOptions> {
  if (!!opts.proxyClientCertFile !== !!opts.proxyClientKeyFile) {
    throw new Error('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  }
  // With an authenticating proxy of the operator's own (--requestheader-client-ca-file), the
  // proxy client certificate must come from that CA too: nothing is generated, as upstream.
  if (opts.proxyClientCertFile || opts.tlsCertFile || opts.devInsecureHttp || opts.requestheaderClientCaFile) return opts;
  const certDir = opts.certDir || join(dataDir, 'certs');
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  const caFile = join(certDir, `${FRONT_PROXY_CA}.crt`);
  const caKeyFile = join(certDir, `${FRONT_PROXY_CA}.key`);
  const certFile = join(certDir, `${FRONT_PROXY_CLIENT}.crt`);
  const keyFile = join(certDir, `${FRONT_PROXY_CLIENT}.key`);
  // A single-process replica gets here before its serving certificates are made (and the
  // directory with them): a fresh data directory has no cert dir yet.
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  let caPem = await readIfExists(caFile);
  let caKeyPem = await readIfExists(caKeyFile);
  if (caPem === undefined || caKeyPem === undefined) {
    ({ certPem: caPem, keyPem: caKeyPem } = createCa(new Date(), FRONT_PROXY_CA));
    await writeAtomic(caKeyFile, caKeyPem, 0o600);
    await writeAtomic(caFile, caPem, 0o644);
    // A new CA: any client certificate left from an old one is replaced below.
    await writeAtomic(certFile, '', 0o644);
  }
  if (!(await readIfExists(certFile)) || !(await readIfExists(keyFile))) {
    const client = issueClientCertificate(caPem, caKeyPem, { commonName: FRONT_PROXY_CLIENT, days: 3650 });
    await writeAtomic(keyFile, client.keyPem, 0o600);
    await writeAtomic(certFile, client.certPem, 0o644);
  }
  return {
    ...opts,
    proxyClientCertFile: certFile,
    proxyClientKeyFile: keyFile,
    requestheaderClientCaFile: caFile,
    requestheaderAllowedNames: opts.requestheaderAllowedNames.length ? opts.requestheaderAllowedNames : [FRONT_PROXY_CLIENT],
    requestheaderUsernameHeaders: opts.requestheaderUsernameHeaders.length ? opts.requestheaderUsernameHeaders : ['X-Remote-User'],
    requestheaderGroupHeaders: opts.requestheaderGroupHeaders.length ? opts.requestheaderGroupHeaders : ['X-Remote-Group'],
    requestheaderExtraHeadersPrefix: opts.requestheaderExtraHeadersPrefix.length ? opts.requestheaderExtraHeadersPrefix : ['X-Remote-Extra-'],
  };
}

/** What the APIService availability controller needs: the proxy client certificate, its period, the metrics registry. */
export async function availabilitySettings(opts: ServerOptions, metrics: Registry): Promise<AvailabilitySettings> {
  const proxyClientCert = opts.proxyClientCertFile
    ? { certPem: await readFile(opts.proxyClientCertFile, 'utf8'), keyPem: await readFile(opts.proxyClientKeyFile, 'utf8') }
    : undefined;
  return { proxyClientCert, checkPeriodMs: opts.apiserviceAvailabilityCheckPeriod, metrics };
}

/** The aggregation settings of a replica: the proxy client certificate and the header names never forwarded. */
export async function aggregationConfig(opts: ServerOptions, logger: Logger): Promise<AggregationConfig> {
  let proxyClientCert: ProxyClientCertificate | undefined;
  if (opts.proxyClientCertFile) {
    proxyClientCert = { certPem: await readFile(opts.proxyClientCertFile, 'utf8'), keyPem: await readFile(opts.proxyClientKeyFile, 'utf8') };
  } else {
    logger.warn('no --proxy-client-cert-file: extension API servers cannot authenticate this server');
  }
  return {
    proxyClientCert,
    stripHeaders: { names: [...opts.requestheaderUsernameHeaders, ...opts.requestheaderGroupHeaders, ...opts.requestheaderUidHeaders], prefixes: opts.requestheaderExtraHeadersPrefix },
    log: (msg, err) => logger.warn({ err, component: 'aggregator' }, msg),
  };
}

/**
 * Upstream's `cluster-system/extension-apiserver-authentication` data: the client CA and the
 * authenticating proxy's CA, allowed names and header names (the lists JSON-encoded), which
 * extension API servers read to trust the identities this server forwards. Pure.
 */
export function extensionAuthenticationData(opts: ServerOptions, clientCaPem: string | undefined, requestHeaderCaPem: string | undefined): Record<string, string> {
  const data: Record<string, string> = {};
  if (clientCaPem) data['client-ca-file'] = clientCaPem;
  if (requestHeaderCaPem) {
    data['requestheader-client-ca-file'] = requestHeaderCaPem;
    data['requestheader-allowed-names'] = JSON.stringify(opts.requestheaderAllowedNames);
    data['requestheader-username-headers'] = JSON.stringify(opts.requestheaderUsernameHeaders);
    data['requestheader-group-headers'] = JSON.stringify(opts.requestheaderGroupHeaders);
    data['requestheader-extra-headers-prefix'] = JSON.stringify(opts.requestheaderExtraHeadersPrefix);
    if (opts.requestheaderUidHeaders.length) data['requestheader-uid-headers'] = JSON.stringify(opts.requestheaderUidHeaders);
  }
  return data;
}

/** Writes the ConfigMap when its data differs (created when missing). Throws on storage errors other than a lost race. */
async function publishExtensionAuthentication(api: ApiServer, data: Record<string, string>): Promise<void> {
  const configMaps = api.registries.byResource('', 'configmaps');
  if (!configMaps || Object.keys(data).length === 0) return;
  const write = { dryRun: false, fieldManager: 'cluster-apiserver' };
  await configMaps.patch(
    EXTENSION_AUTH_NAMESPACE,
    EXTENSION_AUTH_CONFIGMAP,
    (current) =>
      ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { ...(current?.metadata ?? {}), name: EXTENSION_AUTH_CONFIGMAP, namespace: EXTENSION_AUTH_NAMESPACE },
        data,
      }) as KubeObject,
    { ...write, createIfMissing: true },
  );
}

/**
 * Starts this replica's aggregation layer (the APIService watch, the proxy's routes, the
 * extensions' discovery). The process that runs the singletons also keeps the local APIServices
 * and publishes extension-apiserver-authentication. `stop` ends all of it.
 */
export async function startAggregation(
  api: ApiServer,
  opts: ServerOptions,
  logger: Logger,
  runsSingletons: boolean,
  cas: { clientCaPem?: string; requestHeaderCaPem?: string },
): Promise<{ stop(): void }> {
  await api.aggregator.start();
  if (!runsSingletons) return { stop: () => api.aggregator.stop() };
  await publishExtensionAuthentication(api, extensionAuthenticationData(opts, cas.clientCaPem, cas.requestHeaderCaPem)).catch((err) =>
    logger.warn({ err }, `${EXTENSION_AUTH_NAMESPACE}/${EXTENSION_AUTH_CONFIGMAP} not written`),
  );
  const local = startLocalApiServices({
    registries: () => api.registries,
    apiDomain: opts.apiDomain,
    served: () => api.catalog.servedGroupVersions(),
    onServedChange: (listener) => api.catalog.onResourcesChanged(listener),
    log: (msg, err) => logger.warn({ err, component: 'local-apiservices' }, msg),
  });
  await local.firstPass;
  return {
    stop: () => {
      local.stop();
      api.aggregator.stop();
    },
  };
}
