/** What kubectl tells an exec plugin in KUBERNETES_EXEC_INFO (SPEC 2.11, 5.6). */
export interface ExecInfo {
  apiVersion: string;
  interactive: boolean;
  /** spec.cluster, present when the kubeconfig sets provideClusterInfo. */
  cluster?: { server?: string; 'certificate-authority-data'?: string; config?: unknown };
}

export interface CredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  /** RFC 3339; absent: valid until a 401. */
  expirationTimestamp?: string;
}

/** The exec credential API versions kubectl speaks, under the API domain. */
export function execApiVersions(apiDomain: string): string[] {
  return [`client.authentication.${apiDomain}/v1`, `client.authentication.${apiDomain}/v1beta1`];
}

/**
 * Reads KUBERNETES_EXEC_INFO. Pure.
 * @throws Error with a one-line message when it is missing, not JSON, or of a version this plugin
 * cannot answer in.
 */
export function parseExecInfo(raw: string | undefined, apiDomain: string): ExecInfo {
  if (!raw) throw new Error('KUBERNETES_EXEC_INFO is not set: this command is meant to be run by kubectl as an exec credential plugin');
  let info: { apiVersion?: unknown; kind?: unknown; spec?: { interactive?: unknown; cluster?: ExecInfo['cluster'] } };
  try {
    info = JSON.parse(raw) as typeof info;
  } catch {
    throw new Error('KUBERNETES_EXEC_INFO is not valid JSON');
  }
  const versions = execApiVersions(apiDomain);
  if (typeof info.apiVersion !== 'string' || !versions.includes(info.apiVersion)) {
    throw new Error(`KUBERNETES_EXEC_INFO has apiVersion ${JSON.stringify(info.apiVersion)}; supported: ${versions.join(', ')}`);
  }
  if (info.kind !== 'ExecCredential') throw new Error(`KUBERNETES_EXEC_INFO has kind ${JSON.stringify(info.kind)}, not ExecCredential`);
  const out: ExecInfo = { apiVersion: info.apiVersion, interactive: info.spec?.interactive === true };
  if (info.spec?.cluster) out.cluster = info.spec.cluster;
  return out;
}

/** The ExecCredential printed on stdout, in the version kubectl asked for. Pure. */
export function execCredential(apiVersion: string, status: CredentialStatus): string {
  return `${JSON.stringify({ apiVersion, kind: 'ExecCredential', status })}\n`;
}
