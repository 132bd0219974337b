import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { formatTokenRecord, parseTokenFile, type TokenUser } from './token-file.js';
import { writeAtomic } from './write-atomic.js';

export { parseTokenFile, parseTokenCsv, formatTokenRecord, type TokenUser } from './token-file.js';

/** The built-in administrator: `system:masters` passes every authorizer, as upstream. */
export const ADMIN_USER: TokenUser = { username: 'admin', uid: 'admin', groups: ['system:masters'] };

/** Result of {@link ensureAdminToken}. */
export interface AdminToken {
  token: string;
  /** `<dataDir>/tokens.csv`, to be used as the `--token-auth-file` when none is given. */
  tokenFile: string;
  /** Whether this call created the token. */
  generated: boolean;
}

/**
 * Makes sure `<dataDir>/tokens.csv` (static token file format, mode 0600) has a token for the
 * `admin` user in group `system:masters` and returns it. An existing admin token is reused; when
 * the file exists without one, a record is appended and the other records are kept. The new token
 * is 32 random bytes in base64url. Throws when an existing file is malformed (see
 * {@link parseTokenFile}) or on I/O errors.
 */
export async function ensureAdminToken(dataDir: string): Promise<AdminToken> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const tokenFile = join(dataDir, 'tokens.csv');
  let existing = '';
  try {
    existing = await readFile(tokenFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (existing !== '') {
    for (const [token, user] of await parseTokenFile(tokenFile)) {
      if (user.username === ADMIN_USER.username && user.groups.includes('system:masters')) {
        return { token, tokenFile, generated: false };
      }
    }
  }
  const token = randomBytes(32).toString('base64url');
  const prefix = existing === '' || existing.endsWith('\n') ? existing : `${existing}\n`;
  await writeAtomic(tokenFile, `${prefix}${formatTokenRecord(token, ADMIN_USER)}\n`, 0o600);
  return { token, tokenFile, generated: true };
}

/** Options for {@link writeAdminKubeconfig}. */
export interface AdminKubeconfigOptions {
  path: string;
  /** e.g. `https://127.0.0.1:6443`. */
  serverUrl: string;
  /** CA that signed the serving certificate; omit for the plain-HTTP development mode. */
  caPem?: string;
  token: string;
  clusterName?: string;
  userName?: string;
}

/**
 * Writes (replacing) a kubeconfig at `path` with mode 0600: one cluster (`server` plus the CA as
 * `certificate-authority-data`), one user with the bearer token, and a current context
 * `<user>@<cluster>` joining them. Creates the parent directory. Throws on I/O errors.
 */
export async function writeAdminKubeconfig(opts: AdminKubeconfigOptions): Promise<void> {
  const clusterName = opts.clusterName ?? 'cluster';
  const userName = opts.userName ?? 'admin';
  const contextName = `${userName}@${clusterName}`;
  const cluster: Record<string, string> = { server: opts.serverUrl };
  if (opts.caPem !== undefined) cluster['certificate-authority-data'] = Buffer.from(opts.caPem).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster }],
    users: [{ name: userName, user: { token: opts.token } }],
    contexts: [{ name: contextName, context: { cluster: clusterName, user: userName } }],
    'current-context': contextName,
    preferences: {},
  };
  await mkdir(dirname(opts.path), { recursive: true });
  await writeAtomic(opts.path, stringify(config, { lineWidth: 0 }), 0o600);
}
