import {
  FLOWCONTROL,
  semanticallyEqual,
  type FlowControlBootstrap,
  type FlowControlCondition,
  type FlowSchema,
  type KubeObject,
  type PriorityLevelConfiguration,
} from '@cluster/apimachinery';

export type FlowControlResource = 'flowschemas' | 'prioritylevelconfigurations';

/**
 * One write the keeper makes: create a missing object, update a spec (or only the annotation),
 * update a schema's status, or delete an object it no longer suggests.
 */
export interface KeeperWrite {
  op: 'create' | 'update' | 'status' | 'delete';
  resource: FlowControlResource;
  object: KubeObject;
}

export interface KeeperInput {
  bootstrap: FlowControlBootstrap;
  flowSchemas: readonly FlowSchema[];
  priorityLevels: readonly PriorityLevelConfiguration[];
  /** RFC 3339 time for new condition transitions. */
  now: string;
}

/**
 * Whether the keeper may overwrite an existing object's spec (upstream's configuration ensurer):
 * the `apf.kubernetes.io/autoupdate-spec` annotation says so when present ("true"); without it,
 * only an object no one changed since it was created (generation 1) is kept up to date.
 */
export function autoUpdates(obj: KubeObject): boolean {
  const a = obj.metadata.annotations?.[FLOWCONTROL.autoUpdateAnnotation];
  if (a !== undefined) return a.toLowerCase() === 'true';
  return (obj.metadata.generation ?? 1) === 1;
}

type WithSpec = KubeObject & { spec?: unknown };

function ensure(resource: FlowControlResource, wanted: WithSpec, current: WithSpec | undefined, mandatory: boolean, kind: string, apiVersion: string): KeeperWrite | undefined {
  if (!current) return { op: 'create', resource, object: { apiVersion, kind, ...structuredClone(wanted) } as KubeObject };
  // Mandatory objects are always kept as the bootstrap says; suggested ones while they auto-update.
  if (!mandatory && !autoUpdates(current)) {
    // An operator's change without the annotation: record that the keeper leaves it alone.
    if (current.metadata.annotations?.[FLOWCONTROL.autoUpdateAnnotation] !== undefined) return undefined;
    const object = structuredClone(current);
    object.metadata.annotations = { ...object.metadata.annotations, [FLOWCONTROL.autoUpdateAnnotation]: 'false' };
    return { op: 'update', resource, object };
  }
  const annotated = current.metadata.annotations?.[FLOWCONTROL.autoUpdateAnnotation] === 'true';
  if (annotated && semanticallyEqual(current.spec, wanted.spec)) return undefined;
  const object = structuredClone(current) as WithSpec;
  object.spec = structuredClone(wanted.spec);
  object.metadata.annotations = { ...object.metadata.annotations, [FLOWCONTROL.autoUpdateAnnotation]: 'true' };
  return { op: 'update', resource, object: object as KubeObject };
}

/** The Dangling condition a flow schema should carry, given whether its priority level exists. */
export function danglingCondition(fs: FlowSchema, levelExists: boolean): Omit<FlowControlCondition, 'lastTransitionTime'> {
  const name = fs.spec?.priorityLevelConfiguration?.name ?? '';
  return levelExists
    ? { type: FLOWCONTROL.conditionDangling, status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${name}" and it exists` }
    : { type: FLOWCONTROL.conditionDangling, status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named "${name}" but there is no such object` };
}

/** True when the annotation explicitly asks for automatic updates (upstream deletes such objects it does not know). */
const annotatedTrue = (obj: KubeObject) => obj.metadata.annotations?.[FLOWCONTROL.autoUpdateAnnotation]?.toLowerCase() === 'true';

/**
 * The writes that bring the stored configuration to what the bootstrap asks (upstream's
 * configuration ensurer): missing mandatory and suggested objects created (annotated to
 * auto-update); mandatory specs always restored; suggested specs restored while they auto-update
 * (an unannotated one changed since its creation is annotated "false" and left alone); objects
 * annotated "true" that the bootstrap does not know deleted; and each remaining flow schema's
 * Dangling condition set from whether its level exists (counting the levels about to be created,
 * not those about to be deleted). Pure.
 */
export function planFlowControlWrites(input: KeeperInput, apiVersion: string): KeeperWrite[] {
  const { bootstrap: b } = input;
  const writes: KeeperWrite[] = [];
  const pls = new Map(input.priorityLevels.map((p) => [p.metadata.name ?? '', p]));
  const fss = new Map(input.flowSchemas.map((f) => [f.metadata.name ?? '', f]));
  const levelNames = new Set(pls.keys());
  const knownLevels = new Set([...b.mandatoryPriorityLevels, ...b.suggestedPriorityLevels].map((o) => o.metadata.name!));
  const knownSchemas = new Set([...b.mandatoryFlowSchemas, ...b.suggestedFlowSchemas].map((o) => o.metadata.name!));
  const deleted = new Set<KubeObject>();
  for (const pl of input.priorityLevels) {
    if (knownLevels.has(pl.metadata.name ?? '') || !annotatedTrue(pl)) continue;
    writes.push({ op: 'delete', resource: 'prioritylevelconfigurations', object: pl });
    levelNames.delete(pl.metadata.name ?? '');
  }
  for (const fs of input.flowSchemas) {
    if (knownSchemas.has(fs.metadata.name ?? '') || !annotatedTrue(fs)) continue;
    writes.push({ op: 'delete', resource: 'flowschemas', object: fs });
    deleted.add(fs);
  }
  for (const [list, mandatory] of [[b.mandatoryPriorityLevels, true], [b.suggestedPriorityLevels, false]] as const) {
    for (const wanted of list) {
      const w = ensure('prioritylevelconfigurations', wanted, pls.get(wanted.metadata.name!), mandatory, 'PriorityLevelConfiguration', apiVersion);
      if (w) writes.push(w);
      levelNames.add(wanted.metadata.name!);
    }
  }
  for (const [list, mandatory] of [[b.mandatoryFlowSchemas, true], [b.suggestedFlowSchemas, false]] as const) {
    for (const wanted of list) {
      const w = ensure('flowschemas', wanted, fss.get(wanted.metadata.name!), mandatory, 'FlowSchema', apiVersion);
      if (w) writes.push(w);
    }
  }
  for (const fs of input.flowSchemas) {
    if (deleted.has(fs)) continue;
    const want = danglingCondition(fs, levelNames.has(fs.spec?.priorityLevelConfiguration?.name ?? ''));
    const conditions = fs.status?.conditions ?? [];
    const have = conditions.find((c) => c.type === want.type);
    if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) continue;
    const object = structuredClone(fs);
    const lastTransitionTime = have && have.status === want.status && have.lastTransitionTime ? have.lastTransitionTime : input.now;
    object.status = { ...object.status, conditions: [...conditions.filter((c) => c.type !== want.type), { ...want, lastTransitionTime }] };
    writes.push({ op: 'status', resource: 'flowschemas', object });
  }
  return writes;
}
