// Shared credentials of the local HA cluster: one CA and serving certificate (SANs for every
// loopback name), one front-proxy CA and client certificate, one token file (the admin, and a
// system:monitoring user for Prometheus), and the admin kubeconfig pointing at the load balancer. Usage: node hack/ha/setup.mjs <dir> <lb-port>
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureCertificates } from '../../packages/server/dist/src/certs.js';
import { parseFlags } from '../../packages/server/dist/src/flags.js';
import { withFrontProxyDefaults } from '../../packages/server/dist/src/start-aggregator.js';

const [dir, lbPort] = process.argv.slice(2);
const certs = await ensureCertificates({ certDir: join(dir, 'certs'), hosts: ['127.0.0.1', 'localhost'] });
// The aggregation layer's front-proxy CA and client certificate (kubeadm's front-proxy-*), made
// here once, as the embedded default makes them: every replica is given the same files by flag.
await withFrontProxyDefaults(parseFlags(['--cert-dir', join(dir, 'certs')]), dir);
const token = randomBytes(24).toString('hex');
// Prometheus scrapes /metrics as a member of system:monitoring (allowed by default RBAC).
const prometheusToken = randomBytes(24).toString('hex');
await writeFile(join(dir, 'tokens.csv'), `${token},admin,admin-uid,system:masters\n${prometheusToken},prometheus,prometheus-uid,system:monitoring\n`, { mode: 0o600 });
await writeFile(join(dir, 'prometheus.token'), `${prometheusToken}\n`, { mode: 0o600 });
const kubeconfig = [
  'apiVersion: v1',
  'kind: Config',
  'clusters:',
  '- name: local-ha',
  '  cluster:',
  `    server: https://127.0.0.1:${lbPort}`,
  `    certificate-authority-data: ${Buffer.from(certs.caCertPem).toString('base64')}`,
  'users:',
  '- name: admin',
  '  user:',
  `    token: ${token}`,
  'contexts:',
  '- name: local-ha',
  '  context: {cluster: local-ha, user: admin}',
  'current-context: local-ha',
  '',
].join('\n');
await writeFile(join(dir, 'admin.kubeconfig'), kubeconfig, { mode: 0o600 });
