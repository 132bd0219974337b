import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { reshapeInPlace } from '../../core/pod-spec/go-shape.js';
import { bumpGenerationOnSpecChange, keepStoredStatus, statusSubresource } from '../../status-subresource.js';
import { hpaV1ToV2 } from './conversion.js';
import { defaultHpaV1, defaultHpaV2 } from './defaults.js';
import { hpaCells, hpaColumns } from './table.js';
import type { HPAV1, HPAV2 } from './types.js';
import { validateHpaSpec, validateHpaStatus } from './validation.js';

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain' };
// Upstream validates the internal (v2-shaped) object whatever version was written.
const asV2 = (hpa: HPAV1): HPAV2 => hpaV1ToV2(hpa, 'autoscaling/v2');
const minBound = (old: HPAV2) => (old.spec?.minReplicas === 0 ? 0 : 1);

/** Shared by both versions: status is cleared on create and kept on update; generation counts spec changes. */
function hpaStrategy<T extends HPAV1 | HPAV2>(defaults: (o: T) => void, toV2: (o: T) => HPAV2) {
  return {
    namespaceScoped: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate: (hpa: T) => {
      delete hpa.status;
      defaults(hpa);
      hpa.metadata.generation = 1;
      reshapeInPlace(hpa);
    },
    prepareForUpdate: (hpa: T, old: T) => {
      defaults(hpa);
      keepStoredStatus(hpa, old);
      reshapeInPlace(hpa);
      const next = toV2(hpa);
      bumpGenerationOnSpecChange(next, toV2(old));
      hpa.metadata.generation = next.metadata.generation;
    },
    validate: (hpa: T) => [...validateObjectMeta(hpa.metadata, metaOptions), ...validateHpaSpec(toV2(hpa))],
    validateUpdate: (hpa: T, old: T) => [...validateObjectMetaUpdate(hpa.metadata, old.metadata, metaOptions), ...validateHpaSpec(toV2(hpa), minBound(toV2(old)))],
    subresources: { status: statusSubresource<T>(metaOptions, (obj) => validateHpaStatus(toV2(obj))) },
    table: { columns: hpaColumns, cells: (hpa: T) => hpaCells(toV2(hpa)) },
  } satisfies ResourceStrategy<T>;
}

/** HorizontalPodAutoscaler at autoscaling/v2 (the stored form). */
export const hpaV2Strategy = hpaStrategy<HPAV2>(defaultHpaV2, (o) => o);
/** HorizontalPodAutoscaler at autoscaling/v1: same rules, checked on the v2 form. */
export const hpaV1Strategy = hpaStrategy<HPAV1>(defaultHpaV1, asV2);
