import { newForbidden, type KubeObject } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

/** Marks the IngressClass new Ingresses without a class get (read by stock ingress controllers too). */
export const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';
/** The pre-1.18 way an Ingress named its class; an Ingress with it is left alone. */
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

interface IngressLike extends KubeObject {
  spec?: { ingressClassName?: string } | null;
}

/**
 * The class a new Ingress gets (upstream's DefaultIngressClass, v1.24): none when it names one
 * (field or annotation) or no IngressClass is marked default; the default's name when exactly one
 * is. Returns an error text when several are marked (upstream then refuses the Ingress). Pure.
 */
export function defaultIngressClassFor(ingress: IngressLike, classes: readonly KubeObject[]): { className?: string; error?: string } {
  if (ingress.spec?.ingressClassName || ingress.metadata.annotations?.[CLASS_ANNOTATION] !== undefined) return {};
  const defaults = classes.filter((c) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true');
  if (defaults.length > 1) return { error: `${defaults.length} default IngressClasses were found, only 1 allowed` };
  return defaults.length === 1 ? { className: defaults[0]!.metadata.name ?? '' } : {};
}

/**
 * Upstream's DefaultIngressClass admission plugin: an Ingress created without a class gets the
 * IngressClass annotated `ingressclass.kubernetes.io/is-default-class: "true"`; two or more such
 * classes make the create 403 Forbidden. `listClasses` reads the current IngressClasses.
 */
export function defaultIngressClassAdmission(networkingGroup: string, listClasses: () => Promise<readonly KubeObject[]>): AdmissionPlugin {
  const defaultIngress = async (a: AdmissionAttributes, ingress: IngressLike): Promise<void> => {
    const { className, error } = defaultIngressClassFor(ingress, await listClasses());
    if (error) throw newForbidden({ group: networkingGroup, resource: 'ingresses' }, a.name, error);
    if (className) ingress.spec = { ...(ingress.spec ?? {}), ingressClassName: className };
  };
  return {
    name: 'DefaultIngressClass',
    // Not an async function: for every other kind it returns at once, without a promise.
    admit(a) {
      if (a.operation !== 'CREATE' || a.subresource || a.resource.group !== networkingGroup || a.resource.resource !== 'ingresses' || !a.object) return;
      return defaultIngress(a, a.object as IngressLike);
    },
    validate() {},
  };
}
