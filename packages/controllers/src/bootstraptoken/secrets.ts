import { decodeData, secretTypes, type KubeObject } from '@cluster/apimachinery';

/** The namespace bootstrap token Secrets live in (SPEC 2.9). */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'cluster-system';

/** A v1 Secret as the controllers read it: `data` values are base64. */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string> | null;
}

/** A bootstrap token Secret with its data decoded. */
export interface BootstrapToken {
  secret: Secret;
  /** Decoded `data`. */
  data: Record<string, string>;
}

/**
 * The list path of bootstrap token Secrets: `cluster-system`, narrowed on the server by type
 * (a selectable field of Secrets). Callers still check the type, as the selector is advisory.
 */
export function bootstrapTokenListPath(apiDomain: string): string {
  const selector = `type=${secretTypes(apiDomain).bootstrapToken}`;
  return `/api/v1/namespaces/${BOOTSTRAP_TOKEN_NAMESPACE}/secrets?fieldSelector=${encodeURIComponent(selector)}`;
}

/**
 * The Secrets among `secrets` that are bootstrap tokens (namespace and type right, not being
 * deleted), with decoded data. Pure.
 */
export function bootstrapTokens(secrets: readonly Secret[], apiDomain: string): BootstrapToken[] {
  const type = secretTypes(apiDomain).bootstrapToken;
  const out: BootstrapToken[] = [];
  for (const s of secrets) {
    if (s.type !== type || s.metadata.namespace !== BOOTSTRAP_TOKEN_NAMESPACE || s.metadata.deletionTimestamp) continue;
    out.push({ secret: s, data: decodeData(s.data ?? {}) });
  }
  return out;
}
