import { compactVerify } from 'jose';
import { parse as parseYaml } from 'yaml';

/** The cluster a verified cluster-info names: where it is and the CA to pin. */
export interface VerifiedCluster {
  server: string;
  caPem: string;
  /** The kubeconfig payload as signed. */
  kubeconfig: string;
}

/**
 * Verifies `cluster-public/cluster-info` with a bootstrap token exactly as SPEC 4.12 says: the
 * detached JWS `jws-kubeconfig-<id>` with the base64url `kubeconfig` put between its dots, HS256
 * only, keyed by the whole `<id>.<secret>`; then reads the server and CA from the payload. Pure
 * but for the crypto.
 * @throws Error saying what is wrong (no signature for the token, a signature that does not
 * verify, a payload without a cluster); nothing is trusted then.
 */
export async function verifyClusterInfo(data: Record<string, string> | undefined, token: string): Promise<VerifiedCluster> {
  const id = token.split('.')[0] ?? '';
  const kubeconfig = data?.['kubeconfig'];
  const jws = data?.[`jws-kubeconfig-${id}`];
  if (!kubeconfig) throw new Error('cluster-info has no kubeconfig');
  if (!jws) throw new Error(`cluster-info has no signature for token id ${id} (is the token valid and allowed to sign?)`);
  const [header, payload, signature] = jws.split('.');
  if (header === undefined || payload !== '' || signature === undefined) throw new Error('cluster-info signature is not a detached JWS');
  const full = `${header}.${Buffer.from(kubeconfig).toString('base64url')}.${signature}`;
  try {
    await compactVerify(full, new TextEncoder().encode(token), { algorithms: ['HS256'] });
  } catch {
    throw new Error('cluster-info signature does not verify with this token: refusing to trust it');
  }
  const doc = parseYaml(kubeconfig) as { clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[] };
  const cluster = doc?.clusters?.[0]?.cluster;
  if (!cluster?.server || !cluster['certificate-authority-data']) throw new Error('cluster-info kubeconfig has no server or CA');
  return { server: cluster.server, caPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'), kubeconfig };
}
