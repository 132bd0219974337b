import type { KubeObject } from '../meta/types.js';
import { parseQuantity } from '../schema/quantity.js';
import { intersection, objectCountEvaluator, objectCountName, type QuotaEvaluator } from './evaluator.js';
import { podEvaluator } from './pods.js';
import { countOf, type ResourceList, type Usage } from './resource-list.js';

interface QuotaService extends KubeObject {
  spec?: { type?: string; ports?: Array<{ nodePort?: number }>; allocateLoadBalancerNodePorts?: boolean };
}
interface QuotaClaim extends KubeObject {
  spec?: { storageClassName?: string; resources?: { requests?: ResourceList } };
}

const SERVICE_RESOURCES = [objectCountName('', 'services'), 'services', 'services.nodeports', 'services.loadbalancers'];

/** The type that matters to quota: NodePort, LoadBalancer, or '' for the rest (GetQuotaServiceType). */
export function quotaServiceType(svc: KubeObject): string {
  const type = (svc as QuotaService).spec?.type;
  return type === 'NodePort' || type === 'LoadBalancer' ? type : '';
}

/** The service evaluator: counts, node ports and load balancers; charged on create and update (a type may change). */
export const serviceEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'services',
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) => intersection(input, SERVICE_RESOURCES),
  matchesScope: () => false,
  constraints: () => undefined,
  usage(obj) {
    const svc = obj as QuotaService;
    const ports = svc.spec?.ports ?? [];
    const out: Usage = new Map([
      [objectCountName('', 'services'), countOf(1)],
      ['services', countOf(1)],
      ['services.loadbalancers', countOf(0)],
      ['services.nodeports', countOf(0)],
    ]);
    const type = quotaServiceType(svc);
    if (type === 'NodePort') out.set('services.nodeports', countOf(ports.length));
    if (type === 'LoadBalancer') {
      // Without node port allocation only the ports that name one explicitly use one.
      const nodePorts = svc.spec?.allocateLoadBalancerNodePorts === false ? ports.filter((p) => !!p.nodePort).length : ports.length;
      out.set('services.nodeports', countOf(nodePorts));
      out.set('services.loadbalancers', countOf(1));
    }
    return out;
  },
};

/**
 * The PersistentVolumeClaim evaluator: claims and requested storage, in total and per storage
 * class (`<class>.storageclass.storage.<apiDomain>/<resource>`).
 */
export function claimEvaluator(apiDomain: string): QuotaEvaluator {
  const suffix = `.storageclass.storage.${apiDomain}/`;
  const count = objectCountName('', 'persistentvolumeclaims');
  const base = ['persistentvolumeclaims', 'requests.storage'];
  return {
    group: '',
    resource: 'persistentvolumeclaims',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    matchingResources: (input) => input.filter((n) => n === count || base.includes(n) || base.some((b) => n.endsWith(suffix + b))),
    matchesScope: () => false,
    constraints: () => undefined,
    usage(obj) {
      const claim = obj as QuotaClaim;
      const cls = claim.spec?.storageClassName || claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] || '';
      const out: Usage = new Map([
        ['persistentvolumeclaims', countOf(1)],
        [count, countOf(1)],
      ]);
      if (cls) out.set(`${cls}${suffix}persistentvolumeclaims`, countOf(1));
      const text = claim.spec?.resources?.requests?.storage;
      const storage = text ? parseQuantity(text) : undefined;
      if (storage) {
        // Rounded up to whole bytes.
        const whole = storage.nanos % 1_000_000_000n === 0n ? storage : { nanos: (storage.nanos / 1_000_000_000n + 1n) * 1_000_000_000n, format: storage.format };
        out.set('requests.storage', whole);
        if (cls) out.set(`${cls}${suffix}requests.storage`, whole);
      }
      return out;
    },
  };
}

/** Core kinds counted under a legacy short name besides `count/<resource>`. */
const LEGACY_COUNT_NAMES: Record<string, string> = {
  configmaps: 'configmaps',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
  secrets: 'secrets',
};

/**
 * The evaluators quota knows for every resource, as upstream's registry: special ones for pods,
 * services and claims, object counts with a legacy name for four core kinds, and a plain object
 * count for anything else. Ignored resources (virtual kinds, events) have none.
 */
export class QuotaRegistry {
  private readonly evaluators = new Map<string, QuotaEvaluator>();
  private readonly ignored: Set<string>;

  constructor(private readonly apiDomain: string) {
    const add = (ev: QuotaEvaluator) => this.evaluators.set(`${ev.resource}.${ev.group}`, ev);
    add(podEvaluator);
    add(serviceEvaluator);
    add(claimEvaluator(apiDomain));
    for (const [resource, alias] of Object.entries(LEGACY_COUNT_NAMES)) add(objectCountEvaluator('', resource, alias));
    const authn = `authentication.${apiDomain}`;
    const authz = `authorization.${apiDomain}`;
    this.ignored = new Set([
      'bindings.',
      'componentstatuses.',
      'events.',
      `tokenreviews.${authn}`,
      `subjectaccessreviews.${authz}`,
      `selfsubjectaccessreviews.${authz}`,
      `localsubjectaccessreviews.${authz}`,
      `selfsubjectrulesreviews.${authz}`,
    ]);
  }

  /** The evaluator of a group resource (an object count when none is special); undefined when ignored. */
  evaluatorFor(group: string, resource: string): QuotaEvaluator | undefined {
    const key = `${resource}.${group}`;
    if (this.ignored.has(key)) return undefined;
    let ev = this.evaluators.get(key);
    if (!ev) {
      ev = objectCountEvaluator(group, resource);
      this.evaluators.set(key, ev);
    }
    return ev;
  }

  /** The evaluators with special logic or a legacy name (always consulted when computing usage). */
  builtin(): QuotaEvaluator[] {
    return [...this.evaluators.values()].filter((e) => e.group === '' && (e.resource in LEGACY_COUNT_NAMES || ['pods', 'services', 'persistentvolumeclaims'].includes(e.resource)));
  }

  get domain(): string {
    return this.apiDomain;
  }
}
