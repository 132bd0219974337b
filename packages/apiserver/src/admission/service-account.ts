import type { AdmissionPlugin } from './admission.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

interface PodSpecAccount {
  serviceAccountName?: string;
  /** Deprecated alias of serviceAccountName, still read and written by v1 clients. */
  serviceAccount?: string;
}

/**
 * The account a new pod runs as (upstream ServiceAccount admission, naming part only): the one it
 * names (`serviceAccountName`, else the deprecated `serviceAccount`), or `default`. Both fields
 * then carry it. Mirror pods (`<apiDomain>/config.mirror`), which a node agent reports for static
 * pods, are left alone as upstream does. Changes `spec` in place. Pure.
 */
export function defaultPodServiceAccount(pod: { metadata?: { annotations?: Record<string, string> | null }; spec?: PodSpecAccount | null }, apiDomain: string): void {
  if (!pod.spec || typeof pod.spec !== 'object') return;
  if (pod.metadata?.annotations?.[`${apiDomain}/config.mirror`] !== undefined) return;
  const name = pod.spec.serviceAccountName || pod.spec.serviceAccount || DEFAULT_SERVICE_ACCOUNT;
  pod.spec.serviceAccountName = name;
  pod.spec.serviceAccount = name;
}

/**
 * Upstream's ServiceAccount admission, reduced to naming the account: a pod created without one
 * runs as `default`. Unlike upstream it neither requires the account to exist nor mounts a token
 * (this server issues no pod tokens).
 */
export function serviceAccountAdmission(apiDomain: string): AdmissionPlugin {
  return {
    name: 'ServiceAccount',
    async admit(a) {
      if (a.operation !== 'CREATE' || a.subresource || a.resource.group !== '' || a.resource.resource !== 'pods' || !a.object) return;
      defaultPodServiceAccount(a.object as Parameters<typeof defaultPodServiceAccount>[0], apiDomain);
    },
    async validate() {},
  };
}
