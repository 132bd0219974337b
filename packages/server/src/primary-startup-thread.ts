// The primary's start-up work that needs the whole server's modules, run in a worker thread of
// its own (see primary-startup.ts): the full flag checks (they need the API's group versions and
// the controllers' names) and the files every worker reads (admin token, service-account key,
// CA and serving certificate, front-proxy client certificate), then, once the workers serve,
// admin.kubeconfig. When the thread ends, its isolate and the modules it loaded go with it.
import { join, resolve } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { ensureAdminToken, writeAdminKubeconfig } from './admin-credentials.js';
import { ensureCertificates } from './certs.js';
import { FlagError, parseFlags } from './flags.js';
import type { PrimaryStartupReply, PrimaryStartupRequest } from './primary-startup.js';
import { loadServiceAccountConfig } from './service-accounts.js';
import { withFrontProxyDefaults } from './start-aggregator.js';
import { servingHosts } from './start-tls.js';
import { unsupportedFlags } from './unsupported-flags.js';

const port = parentPort;
if (!port) throw new Error('primary-startup-thread.js runs as a worker thread only');
const reply = (m: PrimaryStartupReply) => port.postMessage(m);

async function prepare(argv: string[]): Promise<PrimaryStartupReply> {
  let opts;
  try {
    opts = parseFlags(argv);
  } catch (e) {
    if (e instanceof FlagError) return { type: 'usage-error', message: e.message };
    throw e;
  }
  const unsupported = unsupportedFlags(opts);
  if (unsupported.length > 0) return { type: 'usage-error', message: `not supported by this server yet: ${unsupported.join(', ')}` };
  const dataDir = resolve(opts.dataDir);
  // Written before any worker exists, so workers only read these files and never race to create them.
  const admin = await ensureAdminToken(dataDir);
  const certDir = opts.certDir || join(dataDir, 'certs');
  await loadServiceAccountConfig(opts, certDir);
  const caPem = !opts.devInsecureHttp && !opts.tlsCertFile ? (await ensureCertificates({ certDir, hosts: servingHosts(opts) })).caCertPem : undefined;
  await withFrontProxyDefaults(opts, dataDir);
  return { type: 'prepared', options: opts, adminToken: admin.token, ...(caPem !== undefined ? { caPem } : {}) };
}

const failed = (err: unknown): PrimaryStartupReply => ({ type: 'failed', message: err instanceof Error ? err.message : String(err) });

port.on('message', (m: PrimaryStartupRequest) => {
  if (m.type === 'write-kubeconfig') {
    writeAdminKubeconfig({ path: m.path, serverUrl: m.url, caPem: m.caPem, token: m.token }).then(
      () => reply({ type: 'kubeconfig-written' }),
      (err: unknown) => reply(failed(err)),
    );
  }
});
prepare((workerData as { argv: string[] }).argv).then(reply, (err: unknown) => reply(failed(err)));
