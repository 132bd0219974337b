import { forbidden, type FieldErrorList, type KubeObject } from '@cluster/apimachinery';
import type { VersionConversion } from '../../converted-strategy.js';

// apps/v1beta1 and extensions/v1beta1 workloads (removed in 1.16; SPEC 9.4) over the stored apps/v1
// objects: their own defaults (upstream's pkg/apis/{apps/v1beta1,extensions/v1beta1}/defaults.go,
// v1.24), a selector defaulted from the template's labels, spec.rollbackTo refused (the rollback
// it asked for is gone with the version) and extensions' DaemonSet templateGeneration dropped.

type Json = Record<string, unknown>;
interface Workload extends KubeObject {
  spec?: Json & { template?: { metadata?: { labels?: Record<string, string> } }; selector?: unknown; strategy?: Json; updateStrategy?: Json };
}
const MAX_INT32 = 2147483647;

function selectorFromTemplate(w: Workload): void {
  const labels = w.spec?.template?.metadata?.labels;
  if (!labels || !w.spec) return;
  w.spec.selector ??= { matchLabels: { ...labels } };
  if (!w.metadata.labels || Object.keys(w.metadata.labels).length === 0) w.metadata.labels = { ...labels };
}

function rollingUpdate(spec: Json, key: 'strategy' | 'updateStrategy', surge: number | string, unavailable: number | string, onlyWhenRolling = true): void {
  const s = (spec[key] ??= {}) as Json;
  if (s['type'] !== 'RollingUpdate' && (onlyWhenRolling || s['rollingUpdate'] === undefined)) return;
  const ru = (s['rollingUpdate'] ??= {}) as Json;
  ru['maxUnavailable'] ??= unavailable;
  ru['maxSurge'] ??= surge;
}

/** The old version's defaults of a kind (`group` is `apps` or `extensions`). Mutates `obj`. */
function defaultsOf(group: 'apps' | 'extensions', resource: string): (obj: KubeObject) => void {
  return (obj) => {
    const w = obj as Workload;
    if (resource === 'controllerrevisions') return;
    const spec = (w.spec ??= {});
    selectorFromTemplate(w);
    if (resource === 'deployments') {
      spec['replicas'] ??= 1;
      const strategy = (spec['strategy'] ??= {}) as Json;
      strategy['type'] ??= 'RollingUpdate';
      if (group === 'apps') {
        rollingUpdate(spec, 'strategy', '25%', '25%');
        spec['revisionHistoryLimit'] ??= 2;
        spec['progressDeadlineSeconds'] ??= 600;
      } else {
        rollingUpdate(spec, 'strategy', 1, 1, false);
        spec['revisionHistoryLimit'] ??= MAX_INT32;
        spec['progressDeadlineSeconds'] ??= MAX_INT32;
      }
    } else if (resource === 'statefulsets') {
      spec['podManagementPolicy'] ??= 'OrderedReady';
      const us = (spec['updateStrategy'] ??= {}) as Json;
      us['type'] ??= 'OnDelete';
      spec['replicas'] ??= 1;
      spec['revisionHistoryLimit'] ??= 10;
    } else if (resource === 'daemonsets') {
      const us = (spec['updateStrategy'] ??= {}) as Json;
      us['type'] ??= 'OnDelete';
      rollingUpdate(spec, 'updateStrategy', 0, 1);
      spec['revisionHistoryLimit'] ??= 10;
    } else if (resource === 'replicasets') {
      spec['replicas'] ??= 1;
    }
  };
}

function withoutOldFields(obj: KubeObject): KubeObject {
  const spec = (obj as Workload).spec;
  if (!spec || (!('rollbackTo' in spec) && !('templateGeneration' in spec))) return obj;
  const { rollbackTo: _rollback, templateGeneration: _generation, ...rest } = spec;
  return { ...obj, spec: rest };
}

/** spec.rollbackTo asked the removed rollback subresource's work of the controller: refused. */
function refuseRollback(obj: KubeObject): FieldErrorList {
  const spec = (obj as Workload).spec;
  return spec && spec['rollbackTo'] !== undefined && spec['rollbackTo'] !== null
    ? [forbidden('spec.rollbackTo', 'rollback is no longer supported; use kubectl rollout undo against apps/v1')]
    : [];
}

/** How `group`/v1beta1 `resource` objects convert to the stored apps/v1 form and back. */
export function legacyWorkloadConversion(group: 'apps' | 'extensions', resource: string): VersionConversion {
  return {
    toCurrent: (obj) => ({ ...withoutOldFields(obj), apiVersion: 'apps/v1' }),
    fromCurrent: (obj) => ({ ...obj, apiVersion: `${group}/v1beta1` }),
    defaults: defaultsOf(group, resource),
    validate: refuseRollback,
  };
}
