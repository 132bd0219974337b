import { isDeepStrictEqual } from 'node:util';
import {
  child,
  invalid,
  labelSelectorFromLabelSelectorObject,
  validateImmutableField,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
  type LabelSelectorObject,
} from '@cluster/apimachinery';
import type { ResourceStrategy, SubresourceStrategy, TableColumnDefinition } from '../../../registry/strategy.js';
import { statusUpdate } from '../../../registry/status-update.js';
import type { Workload } from '../../core/pod-spec/types.js';
import { validatePodTemplateSpec } from '../../core/pod-spec/validation.js';
import { reshaped } from '../../core/pod-spec/go-shape.js';
import { bumpGenerationOnSpecChange, generationPrepare } from '../../status-subresource.js';

const metaOptions = { namespaced: true, nameValidator: 'subdomain' as const };

/** What differs between the replicated kinds; everything else is shared. */
export interface WorkloadKind<T extends Workload> {
  /** Upstream's defaulting (SetDefaults_<Kind>). Mutates obj. */
  defaults(obj: T): void;
  /** Spec rules of the kind beyond the template (selector, replicas, strategies). */
  validateSpec(obj: T): FieldErrorList;
  /** Extra update rules (immutable selector, ...). */
  validateSpecUpdate?(obj: T, old: T): FieldErrorList;
  /** The label selector string a Scale reports; undefined when the kind has no scale subresource. */
  scaleSelector?(obj: T): string;
  table: { columns: TableColumnDefinition[]; cells(obj: T): unknown[] };
  selectableFields?(obj: T): Record<string, string>;
  /** `status` updates keep the stored labels (upstream's Deployment status strategy). */
  statusKeepsLabels?: boolean;
}

/** `spec.replicas` must not be negative. */
export function validateReplicas(replicas: number | undefined, specPath = 'spec'): FieldErrorList {
  return replicas !== undefined && replicas < 0 ? [invalid(child(specPath, 'replicas'), replicas, 'must be greater than or equal to 0')] : [];
}

/** The pod template rule shared by every kind that keeps pods running. */
export function validateWorkloadTemplate(obj: Workload): FieldErrorList {
  return validatePodTemplateSpec(obj.spec?.template, 'spec.template', { requireAlwaysRestart: true });
}

/** apps/v1 selectors cannot change after create. */
export function validateSelectorImmutable(obj: Workload, old: Workload): FieldErrorList {
  return validateImmutableField(obj.spec?.selector, old.spec?.selector, 'spec.selector', isDeepStrictEqual);
}

/** The label selector of an apps/v1 object as text (Scale status.selector). */
export function selectorText(sel: LabelSelectorObject | undefined): string {
  try {
    return labelSelectorFromLabelSelectorObject(sel).toString();
  } catch {
    return '';
  }
}

/** The autoscaling/v1 Scale view of a workload, and how a Scale writes back to it. */
function scaleSubresource<T extends Workload>(selector: (obj: T) => string): SubresourceStrategy<T> {
  return {
    merge(requested, current) {
      const next = { ...current, spec: { ...current.spec, replicas: requested.spec?.replicas } } as T;
      bumpGenerationOnSpecChange(next, current);
      return reshaped(next);
    },
    validateUpdate: (obj) => validateReplicas(obj.spec?.replicas),
    view: {
      toView(parent: T): KubeObject {
        const m = parent.metadata;
        return {
          metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
          spec: { replicas: parent.spec?.replicas ?? 0 },
          status: { replicas: parent.status?.replicas ?? 0, selector: selector(parent) },
        };
      },
      fromView(view: KubeObject, parent: T): T {
        const spec = (view['spec'] ?? {}) as { replicas?: number };
        const metadata = { ...parent.metadata, resourceVersion: view.metadata.resourceVersion };
        return { ...parent, metadata, spec: { ...parent.spec, replicas: spec.replicas ?? 0 } } as T;
      },
    },
  };
}

/**
 * The strategy of a replicated workload (Deployment, ReplicaSet, StatefulSet, DaemonSet,
 * ReplicationController): stored only, defaulted and validated as upstream; status changes only
 * through `status`, replicas also through `scale`; generation counts spec changes.
 */
export function workloadStrategy<T extends Workload>(kind: WorkloadKind<T>) {
  const status: SubresourceStrategy<T> = {
    merge: (requested, current) => reshaped(statusUpdate(requested, current, kind.statusKeepsLabels ? ['labels'] : [])),
    validateUpdate: (obj, old) => validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions),
  };
  const scaleSelector = kind.scaleSelector;
  const subresources: Record<string, SubresourceStrategy<T>> = { status };
  if (scaleSelector) subresources['scale'] = scaleSubresource(scaleSelector);
  const validate = (obj: T) => [...validateObjectMeta(obj.metadata, metaOptions), ...kind.validateSpec(obj)];
  return {
    namespaceScoped: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    ...generationPrepare<T>((obj) => {
      obj.spec ??= {};
      kind.defaults(obj);
    }),
    validate,
    validateUpdate: (obj: T, old: T) => [
      ...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions),
      ...kind.validateSpec(obj),
      ...(kind.validateSpecUpdate?.(obj, old) ?? []),
    ],
    selectableFields: kind.selectableFields,
    subresources,
    table: kind.table,
  } satisfies ResourceStrategy<T>;
}
