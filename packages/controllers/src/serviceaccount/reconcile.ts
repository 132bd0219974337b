import type { KubeObject } from '@cluster/apimachinery';
import type { Namespace } from '../namespace/reconcile.js';

/** The account every namespace gets, which pods without `spec.serviceAccountName` run as. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

/**
 * Whether a namespace may still receive new objects: not being deleted. The API refuses creates
 * in a terminating namespace, so controllers that fill namespaces skip those. Pure.
 */
export function namespaceActive(ns: Namespace | undefined): ns is Namespace {
  return !!ns && !ns.metadata.deletionTimestamp && ns.status?.phase !== 'Terminating';
}

/**
 * The ServiceAccount the controller creates in `ns`, or undefined when nothing is to be done: the
 * namespace is gone or terminating, or `default` already exists there. Pure.
 */
export function defaultServiceAccountFor(ns: Namespace | undefined, existing: KubeObject | undefined): KubeObject | undefined {
  if (!namespaceActive(ns) || existing) return undefined;
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace: ns.metadata.name } };
}
