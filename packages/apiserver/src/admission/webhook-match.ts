import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { RuleWithOperations } from '../resources/admissionregistration/types.js';
import type { AdmissionAttributes } from './admission.js';
import type { WebhookEntry } from './webhook-source.js';

/** Reads a namespace's labels (for namespaceSelector); undefined when the namespace is not found. */
export type NamespaceLabels = (name: string) => Promise<Record<string, string> | undefined>;

const CONFIGURATION_RESOURCES = ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'];

/** Webhook configurations are never sent to webhooks (a broken webhook could not be removed otherwise). */
export function exempt(a: AdmissionAttributes): boolean {
  return a.resource.group.startsWith('admissionregistration.') && CONFIGURATION_RESOURCES.includes(a.resource.resource);
}

function resourceMatches(patterns: readonly string[], resource: string, subresource: string): boolean {
  return patterns.some((p) => {
    const [res, sub] = p.split('/') as [string, string | undefined];
    if (sub === undefined) return subresource === '' && (res === '*' || res === resource);
    if (subresource === '') return false;
    return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
  });
}

/**
 * Upstream's rule matcher: operation, group, version, resource (with subresource) and scope.
 * `resource` is the request's own, or one equivalent to it (matchPolicy Equivalent).
 */
export function ruleMatches(r: RuleWithOperations, a: AdmissionAttributes, resource: ResourceInfo = a.resource): boolean {
  const ops = r.operations ?? [];
  if (!ops.includes('*') && !ops.includes(a.operation)) return false;
  const groups = r.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(resource.group)) return false;
  const versions = r.apiVersions ?? [];
  if (!versions.includes('*') && !versions.includes(resource.version)) return false;
  if (!resourceMatches(r.resources ?? [], resource.resource, a.subresource)) return false;
  const scope = r.scope ?? '*';
  if (scope === 'Cluster') return a.namespace === '';
  if (scope === 'Namespaced') return a.namespace !== '';
  return true;
}

function labelsOf(o: KubeObject | undefined): Record<string, string> | undefined {
  return o?.metadata?.labels ?? undefined;
}

/**
 * A resource served over the same stored objects as the request's at another group or version
 * (another version of a custom resource, a removed version, events.<domain> and core events),
 * with the conversions of an object between the two.
 */
export interface EquivalentResource {
  info: ResourceInfo;
  /** The request's object as this resource serves it. Must not change `obj`. */
  to(obj: KubeObject): KubeObject;
  /** An object of this resource as the request's resource serves it. */
  back(obj: KubeObject): KubeObject;
}

/** The resources equivalent to one (not including itself). */
export type EquivalentResources = (info: ResourceInfo) => readonly EquivalentResource[];

/**
 * Which resource a webhook is called for: the request's own when a rule names it, else (under
 * matchPolicy Equivalent, as upstream) the first equivalent one a rule names; undefined when
 * none matches. `null` stands for the request's own resource.
 */
export function matchedResource(e: WebhookEntry, a: AdmissionAttributes, equivalents?: EquivalentResources): EquivalentResource | null | undefined {
  const rules = e.webhook.rules ?? [];
  if (rules.some((r) => ruleMatches(r, a))) return null;
  if (e.webhook.matchPolicy === 'Exact' || !equivalents) return undefined;
  for (const eq of equivalents(a.resource)) {
    if (rules.some((r) => ruleMatches(r, a, eq.info))) return eq;
  }
  return undefined;
}

/**
 * Whether the webhook is called for the request once a rule matched: the object selector matches
 * the object's or the old object's labels, and the namespace selector matches the namespace's
 * labels (a Namespace is judged by its own labels; other cluster-scoped objects always match).
 */
export async function selectorsMatch(e: WebhookEntry, a: AdmissionAttributes, namespaceLabels: NamespaceLabels): Promise<boolean> {
  if (!e.objectSelector.empty) {
    const objectHit = a.object !== undefined && e.objectSelector.matches(labelsOf(a.object) ?? {});
    const oldHit = a.oldObject !== undefined && e.objectSelector.matches(labelsOf(a.oldObject) ?? {});
    if (!objectHit && !oldHit) return false;
  }
  if (e.namespaceSelector.empty) return true;
  if (a.resource.group === '' && a.resource.resource === 'namespaces') {
    return e.namespaceSelector.matches(labelsOf(a.object ?? a.oldObject) ?? {});
  }
  if (a.namespace === '') return true;
  const labels = await namespaceLabels(a.namespace);
  return e.namespaceSelector.matches(labels ?? {});
}

/** Whether a rule names the request's own resource and the selectors match (matchPolicy Exact). */
export async function webhookMatches(e: WebhookEntry, a: AdmissionAttributes, namespaceLabels: NamespaceLabels): Promise<boolean> {
  return matchedResource(e, a) === null && (await selectorsMatch(e, a, namespaceLabels));
}
