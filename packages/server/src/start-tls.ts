import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { certificatesOf } from '@cluster/apiserver';
import type { X509Certificate } from 'node:crypto';
import type { ServerOptions } from './flags.js';
import { ensureCertificates } from './certs.js';

/** What the listener serves with and whom it trusts; undefined parts under --dev-insecure-http. */
export interface ServingTls {
  tls?: { cert: string; key: string; clientCa?: string };
  /** The data dir's CA, when the serving certificate was generated (the embedded default). */
  caPem?: string;
  dataDirCa?: { certPem: string; keyPem: string };
  /** The CA that issues client certificates: --client-ca-file, else the data dir's CA. */
  clientCaPem?: string;
  clientCas: X509Certificate[];
}

/** The names the generated serving certificate covers. */
export function servingHosts(opts: ServerOptions): string[] {
  const hosts = ['127.0.0.1', 'localhost', hostname()];
  if (opts.bindAddress !== '0.0.0.0' && !hosts.includes(opts.bindAddress)) hosts.push(opts.bindAddress);
  return hosts;
}

/**
 * Reads --tls-cert-file/--tls-private-key-file, or generates (once, in the data dir) a CA and a
 * serving certificate, and the client CAs the TLS layer asks certificates of: the client CA and
 * the authenticating proxy's.
 */
export async function servingTls(opts: ServerOptions, dataDir: string, requestHeaderCaPem: string | undefined): Promise<ServingTls> {
  if (opts.devInsecureHttp) return { clientCas: [] };
  let cert: string;
  let key: string;
  let caPem: string | undefined;
  let dataDirCa: ServingTls['dataDirCa'];
  if (opts.tlsCertFile) {
    cert = await readFile(opts.tlsCertFile, 'utf8');
    key = await readFile(opts.tlsPrivateKeyFile, 'utf8');
  } else {
    const certs = await ensureCertificates({ certDir: opts.certDir || join(dataDir, 'certs'), hosts: servingHosts(opts) });
    cert = certs.servingCertPem;
    key = certs.servingKeyPem;
    caPem = certs.caCertPem;
    dataDirCa = { certPem: certs.caCertPem, keyPem: certs.caKeyPem };
  }
  // The embedded default (CA generated in the data dir) also trusts that CA for client
  // certificates, as an installer configures a single-machine cluster: the certificates the
  // cluster issues (admin, nodes) then authenticate. Explicit certificates keep upstream's rule.
  const clientCaPem = opts.clientCaFile ? await readFile(opts.clientCaFile, 'utf8') : caPem;
  const trusted = [clientCaPem, requestHeaderCaPem].filter(Boolean).join('\n');
  return {
    tls: { cert, key, clientCa: trusted || undefined },
    caPem,
    dataDirCa,
    clientCaPem,
    clientCas: clientCaPem ? certificatesOf(clientCaPem) : [],
  };
}
