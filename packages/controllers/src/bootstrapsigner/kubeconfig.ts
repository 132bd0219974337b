import { stringify } from 'yaml';

/** What the public kubeconfig tells a joining machine: where the API is and which CA to trust. */
export interface ClusterInfoSource {
  /** The API server URL clients should use. */
  serverUrl: string;
  /** The cluster CA (PEM); omitted from the kubeconfig when unknown (plain-HTTP development). */
  caPem?: string;
}

/**
 * The `kubeconfig` value of `cluster-info` (SPEC 4.12): one unnamed cluster, no users, no
 * contexts, as kubeadm writes it. Deterministic for a given source, so that comparing strings
 * tells whether it changed. Pure.
 */
export function clusterInfoKubeconfig(src: ClusterInfoSource): string {
  const cluster: Record<string, string> = {};
  if (src.caPem !== undefined) cluster['certificate-authority-data'] = Buffer.from(src.caPem).toString('base64');
  cluster.server = src.serverUrl;
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: '', cluster }],
      contexts: [],
      'current-context': '',
      preferences: {},
      users: [],
    },
    { lineWidth: 0 },
  );
}
