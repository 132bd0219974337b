import {
  notSupported,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
} from '@cluster/apimachinery';
import type { ResourceStrategy, SubresourceStrategy } from '../../../registry/strategy.js';
import { statusUpdate } from '../../../registry/status-update.js';
import { defaultPodOnlySpec } from '../pod-spec/defaults.js';
import type { Pod } from '../pod-spec/types.js';
import { validatePodSpec } from '../pod-spec/validation.js';
import { reshapeInPlace, reshaped } from '../pod-spec/go-shape.js';
import { podQosClass } from './qos.js';
import { podCells, podColumns } from './table.js';
import { validatePodSpecUpdate } from './update-rules.js';
import { mirrorAnnotationKey, validateMirrorAnnotation, validateMirrorAnnotationUpdate } from './mirror-annotation.js';

const metaOptions = { namespaced: true, nameValidator: 'subdomain' as const };
const PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'];

function validatePod(pod: Pod): FieldErrorList {
  return [...validateObjectMeta(pod.metadata, metaOptions), ...validatePodSpec(pod.spec, 'spec', { requireImage: true })];
}

function validateStatus(pod: Pod): FieldErrorList {
  const phase = pod.status?.phase;
  return phase !== undefined && phase !== '' && !PHASES.includes(phase) ? [notSupported('status.phase', phase, PHASES)] : [];
}

/**
 * Pod behaviour (core/v1): stored only, since no node runs anything. Defaults as upstream, status
 * starts Pending with its QoS class and changes only through `status`; the spec is immutable
 * after create except for images, deadlines and added tolerations; the mirror annotation
 * (`<apiDomain>/config.mirror`) is set at create or never, on a pod bound to a node.
 */
export function podStrategy(apiDomain: string) {
  const mirror = mirrorAnnotationKey(apiDomain);
  const metaUpdate = (pod: Pod, old: Pod) => [
    ...validateObjectMetaUpdate(pod.metadata, old.metadata, metaOptions),
    ...validateMirrorAnnotationUpdate(pod, old, mirror),
  ];

  const status: SubresourceStrategy<Pod> = {
    // pods/status may not touch owner references: old kubelets corrupted them (upstream).
    merge: (requested, current) => reshaped(statusUpdate(requested, current, ['ownerReferences'])),
    validateUpdate: (obj, old) => [...metaUpdate(obj, old), ...validateStatus(obj)],
  };

  /** Ephemeral containers are added to a running pod only through their own subresource. */
  const ephemeralContainers: SubresourceStrategy<Pod> = {
    merge(requested, current) {
      const spec = { ...current.spec, ephemeralContainers: requested.spec?.ephemeralContainers };
      defaultPodOnlySpec(spec);
      return reshaped({ ...current, spec });
    },
    validateUpdate: (obj, old) => [...metaUpdate(obj, old), ...validatePod(obj)],
  };

  return {
    namespaceScoped: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(pod: Pod) {
      pod.spec ??= {};
      defaultPodOnlySpec(pod.spec);
      pod.status = { phase: 'Pending', qosClass: podQosClass(pod.spec) };
      reshapeInPlace(pod);
    },
    prepareForUpdate(pod: Pod, old: Pod) {
      pod.spec ??= {};
      defaultPodOnlySpec(pod.spec);
      pod.status = old.status;
      reshapeInPlace(pod);
    },
    validate: (pod: Pod) => [...validatePod(pod), ...validateMirrorAnnotation(pod, mirror)],
    validateUpdate: (pod: Pod, old: Pod) => [
      ...metaUpdate(pod, old),
      ...validatePodSpec(pod.spec, 'spec', { requireImage: true }),
      ...validatePodSpecUpdate(pod.spec, old.spec),
    ],
    selectableFields: (pod: Pod) => ({
      'spec.nodeName': pod.spec?.nodeName ?? '',
      'spec.restartPolicy': pod.spec?.restartPolicy ?? '',
      'spec.schedulerName': pod.spec?.schedulerName ?? '',
      'spec.serviceAccountName': pod.spec?.serviceAccountName ?? '',
      'spec.hostNetwork': String(pod.spec?.['hostNetwork'] === true),
      'status.phase': pod.status?.phase ?? '',
      'status.podIP': pod.status?.podIP ?? '',
      'status.nominatedNodeName': pod.status?.nominatedNodeName ?? '',
    }),
    subresources: { status, ephemeralcontainers: ephemeralContainers },
    table: { columns: podColumns, cells: podCells },
  } satisfies ResourceStrategy<Pod>;
}
