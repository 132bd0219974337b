import {
  createdStatus,
  fieldErrorMessage,
  newBadRequest,
  newConflict,
  newServiceUnavailable,
  notSupported,
  objectSchema,
  objectTypeMeta,
  refProp,
  required,
  StatusError,
  type FieldError,
  type KubeObject,
} from '@cluster/apimachinery';
import { formatTime } from '../../../registry/object-meta.js';
import { statusAnswer, type SubresourceCreater, type VirtualCreate } from '../../../registry/registration.js';
import type { RegistrySet } from '../../../registry/registry-set.js';
import type { Definitions } from '../../../registry/resource-info.js';

/** core/v1 Binding: POSTed to pods/binding and to the namespaced `bindings` collection. */
export const BINDING_DEFINITION = 'io.k8s.api.core.v1.Binding';

interface Binding extends KubeObject {
  target?: { kind?: string; name?: string } | null;
}

interface PodCondition {
  type?: string;
  status?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

interface PodLike extends KubeObject {
  spec?: { nodeName?: string };
  status?: { conditions?: PodCondition[] | null };
}

/** The OpenAPI definition of Binding (metadata and the target it binds to). */
export function bindingDefinitions(): Definitions {
  return {
    [BINDING_DEFINITION]: objectSchema(
      'Binding ties one object to another; for example, a pod is bound to a node by a scheduler. Deprecated in 1.7, please use the bindings subresource of pods instead.',
      {
        ...objectTypeMeta(),
        target: refProp('io.k8s.api.core.v1.ObjectReference', 'The target object that you want to bind to the standard object.'),
      },
      { required: ['target'], gvk: [{ group: '', version: 'v1', kind: 'Binding' }] },
    ),
  };
}

/** Upstream's ValidatePodBinding: the target is a Node (or names no kind) and has a name. */
function validateBinding(b: Binding): FieldError[] {
  const errs: FieldError[] = [];
  const kind = b.target?.kind ?? '';
  if (kind !== '' && kind !== 'Node') errs.push(notSupported('target.kind', kind, ['Node', '<empty>']));
  if (!b.target?.name) errs.push(required('target.name'));
  return errs;
}

/**
 * Upstream's REST storage returns the validation errors as a plain aggregate, which its handler
 * answers as a 500 Failure with no reason and the joined field messages.
 */
function aggregateError(errs: FieldError[]): StatusError {
  const messages = errs.map(fieldErrorMessage);
  const message = messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

/** Upstream's UpdatePodCondition for PodScheduled=True: the transition time stays when the status does not change. */
function scheduledConditions(conditions: PodCondition[], now: string): PodCondition[] {
  const next: PodCondition = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now };
  const i = conditions.findIndex((c) => c.type === 'PodScheduled');
  if (i < 0) return [...conditions, next];
  const old = conditions[i]!;
  if (old.status === 'True') next.lastTransitionTime = old.lastTransitionTime ?? now;
  return conditions.map((c, j) => (j === i ? next : c));
}

const PODS_BINDING = { group: '', resource: 'pods/binding' };

/**
 * Upstream's BindingREST.Create (v1.24): checks the body, then sets the pod's spec.nodeName, copies
 * the Binding's annotations onto the pod and marks it PodScheduled=True, in one guarded write that
 * bypasses pod update validation (nodeName is otherwise immutable). A pod already bound or being
 * deleted is a 409 Conflict on pods/binding; the Binding's uid and resourceVersion, when set, are
 * preconditions on the pod. The answer is a Success Status (201).
 */
async function bind(registries: () => RegistrySet | undefined, namespace: string, urlName: string, body: KubeObject, dryRun: boolean): Promise<KubeObject> {
  const binding = body as Binding;
  const name = binding.metadata.name ?? '';
  if (urlName !== name) throw newBadRequest('name in URL does not match name in Binding object');
  const errs = validateBinding(binding);
  if (errs.length > 0) throw aggregateError(errs);
  if (!name) throw newBadRequest('Name parameter required.');
  const pods = registries()?.byResource('', 'pods');
  if (!pods) throw newServiceUnavailable('the binding subresource is not ready');
  const node = binding.target?.name ?? '';
  const annotations = binding.metadata.annotations ?? {};
  const uid = binding.metadata.uid;
  const resourceVersion = binding.metadata.resourceVersion;
  const preconditions = uid || resourceVersion ? { ...(uid ? { uid } : {}), ...(resourceVersion ? { resourceVersion } : {}) } : undefined;
  await pods.updateStored(
    namespace,
    name,
    (current) => {
      const pod = current as PodLike;
      if (pod.metadata.deletionTimestamp) throw newConflict(PODS_BINDING, name, `pod ${name} is being deleted, cannot be assigned to a host`);
      if (pod.spec?.nodeName) throw newConflict(PODS_BINDING, name, `pod ${name} is already assigned to node ${JSON.stringify(pod.spec.nodeName)}`);
      const conditions = scheduledConditions(pod.status?.conditions ?? [], formatTime(new Date()));
      return {
        ...pod,
        metadata: { ...pod.metadata, annotations: { ...(pod.metadata.annotations ?? {}), ...annotations } },
        spec: { ...pod.spec, nodeName: node },
        status: { ...pod.status, conditions },
      } as KubeObject;
    },
    { preconditions, dryRun },
  );
  return statusAnswer(createdStatus());
}

/** pods/binding (POST a core/v1 Binding named as the pod). */
export function bindingCreater(registries: () => RegistrySet | undefined): SubresourceCreater {
  return { create: (req, _parent, body) => bind(registries, req.namespace, req.name, body, req.dryRun) };
}

/** The namespaced `bindings` collection (upstream's LegacyBindingREST): the pod is the one the body names. */
export function legacyBindingCreate(registries: () => RegistrySet | undefined): VirtualCreate {
  return { create: (req, body) => bind(registries, req.namespace, body.metadata.name ?? '', body, req.dryRun) };
}
