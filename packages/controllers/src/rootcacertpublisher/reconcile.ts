import type { KubeObject } from '@cluster/apimachinery';
import type { Namespace } from '../namespace/reconcile.js';
import { namespaceActive } from '../serviceaccount/reconcile.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const ROOT_CA_KEY = 'ca.crt';

export interface ConfigMap extends KubeObject {
  data?: Record<string, string> | null;
}

/** `<apiDomain>/description`, the annotation that says why the ConfigMap is there. */
export const descriptionAnnotation = (apiDomain: string) => `${apiDomain}/description`;

export const ROOT_CA_DESCRIPTION =
  'Published in every namespace by the cluster so that workloads can verify the API server: ca.crt holds the certificate authority that signs its serving certificate.';

/** What to write to a namespace's `kube-root-ca.crt`: nothing, a create, or an update of the read object. */
export type RootCaPlan = { op: 'none' } | { op: 'create' | 'update'; object: ConfigMap };

export interface RootCaInput {
  ns: Namespace | undefined;
  /** The namespace's `kube-root-ca.crt` as read, or undefined when it does not exist. */
  current: ConfigMap | undefined;
  caPem: string;
  apiDomain: string;
}

/**
 * Decides the write that makes a namespace's `kube-root-ca.crt` hold exactly `ca.crt: <caPem>`
 * and a description. Terminating or vanished namespaces are left alone; a description someone
 * wrote is kept (as upstream, which only fills an empty one); other keys in `data` are dropped
 * because the ConfigMap belongs to the cluster. Pure.
 */
export function planRootCaConfigMap({ ns, current, caPem, apiDomain }: RootCaInput): RootCaPlan {
  if (!namespaceActive(ns)) return { op: 'none' };
  const annotation = descriptionAnnotation(apiDomain);
  const data = { [ROOT_CA_KEY]: caPem };
  if (!current) {
    return {
      op: 'create',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace: ns.metadata.name, annotations: { [annotation]: ROOT_CA_DESCRIPTION } },
        data,
      },
    };
  }
  const have = current.data ?? {};
  const dataRight = Object.keys(have).length === 1 && have[ROOT_CA_KEY] === caPem;
  const described = !!current.metadata.annotations?.[annotation];
  if (dataRight && described) return { op: 'none' };
  const object = structuredClone(current);
  object.data = data;
  if (!described) object.metadata.annotations = { ...object.metadata.annotations, [annotation]: ROOT_CA_DESCRIPTION };
  return { op: 'update', object };
}
