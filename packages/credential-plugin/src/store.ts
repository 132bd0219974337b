import { X509Certificate, createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredCredential {
  certPem: string;
  keyPem: string;
  notAfter: Date;
}

/** Writes a file atomically (temporary file, then rename) with mode 0600. */
export async function writeSecretFile(path: string, content: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, content, { mode: 0o600 });
  await rename(tmp, path);
}

/** The credential kept in `dir` (`client.crt`, `client.key`), if both are there and parse. */
export async function loadCredential(dir: string): Promise<StoredCredential | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([readFile(join(dir, 'client.crt'), 'utf8'), readFile(join(dir, 'client.key'), 'utf8')]);
    return { certPem, keyPem, notAfter: new Date(new X509Certificate(certPem).validTo) };
  } catch {
    return undefined;
  }
}

/** Stores a credential: the key first, so a certificate is never there without its key. */
export async function saveCredential(dir: string, certPem: string, keyPem: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeSecretFile(join(dir, 'client.key'), keyPem);
  await writeSecretFile(join(dir, 'client.crt'), certPem);
}

/**
 * What to do with a stored credential (pure): reuse it while more than `renewBeforeMs` of its
 * life is left; renew with it (it still authenticates) once less is left; join again with the
 * bootstrap token when there is none or it has expired.
 */
export function credentialPlan(stored: StoredCredential | undefined, now: Date, renewBeforeMs: number): 'reuse' | 'renew' | 'join' {
  if (!stored || stored.notAfter.getTime() <= now.getTime()) return 'join';
  return stored.notAfter.getTime() - now.getTime() > renewBeforeMs ? 'reuse' : 'renew';
}

/**
 * The name of the folder a credential is kept in: the server, the identity asked for and the
 * cluster's CA (given with provideClusterInfo). With the CA in it, a cluster made anew at the same
 * address (a fresh data directory, a new CA) never gets the credential kept for the old one, which
 * its CA would reject as Unauthorized until it expired.
 */
export function credentialKey(server: string, commonName: string, clusterCaData = ''): string {
  return createHash('sha256').update(`${server}\u0000${commonName}\u0000${clusterCaData}`).digest('hex').slice(0, 16);
}
