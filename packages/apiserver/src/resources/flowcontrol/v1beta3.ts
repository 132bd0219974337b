import type { FieldErrorList, KubeObject, PriorityLevelConfiguration } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../registry/strategy.js';
import { column } from '../apps/workload/table.js';
import { priorityLevelStrategy } from './strategy.js';

const V3 = 'nominalConcurrencyShares';
const V2 = 'assuredConcurrencyShares';

/** A copy of `pl` whose spec.limited names the shares `to` instead of `from` (nothing else is copied deeply). */
function renameShares(pl: PriorityLevelConfiguration, from: string, to: string, apiVersion?: string): PriorityLevelConfiguration {
  const limited = pl.spec?.limited as Record<string, unknown> | null | undefined;
  const out = apiVersion ? { ...pl, apiVersion } : { ...pl };
  if (!limited || !(from in limited)) return out;
  const { [from]: shares, ...rest } = limited;
  return { ...out, spec: { ...pl.spec, limited: { ...rest, [to]: shares } } };
}

/** In place: moves the shares of `pl` from one field name to the other. */
function renameInPlace(pl: PriorityLevelConfiguration, from: string, to: string): void {
  const limited = pl.spec?.limited as Record<string, unknown> | null | undefined;
  if (!limited || !(from in limited)) return;
  limited[to] = limited[from];
  delete limited[from];
}

/** v1beta3 -> the stored v1beta2 shape (v1beta3 renamed assuredConcurrencyShares to nominalConcurrencyShares). */
export const priorityLevelV1beta3ToStorage = (obj: KubeObject, apiVersion: string): KubeObject =>
  renameShares(obj as PriorityLevelConfiguration, V3, V2, apiVersion) as KubeObject;
/** The stored v1beta2 shape -> v1beta3. */
export const priorityLevelStorageToV1beta3 = (obj: KubeObject, apiVersion: string): KubeObject =>
  renameShares(obj as PriorityLevelConfiguration, V2, V3, apiVersion) as KubeObject;

const asV2 = (pl: PriorityLevelConfiguration) => renameShares(pl, V3, V2);
const v3Fields = (errs: FieldErrorList): FieldErrorList => errs.map((e) => (e.field.startsWith(`spec.limited.${V2}`) ? { ...e, field: e.field.replace(V2, V3) } : e));

/**
 * PriorityLevelConfiguration at v1beta3: v1beta2's behaviour (defaults, validation, status, table)
 * on the v1beta2 form of the object, with error fields and the table named as v1beta3 names them.
 */
export function priorityLevelV1beta3Strategy(apiDomain: string) {
  const base = priorityLevelStrategy(apiDomain);
  return {
    ...base,
    prepareForCreate(pl: PriorityLevelConfiguration) {
      renameInPlace(pl, V3, V2);
      base.prepareForCreate(pl);
      renameInPlace(pl, V2, V3);
    },
    prepareForUpdate(pl: PriorityLevelConfiguration, old: PriorityLevelConfiguration) {
      renameInPlace(pl, V3, V2);
      base.prepareForUpdate(pl, asV2(old));
      renameInPlace(pl, V2, V3);
    },
    validate: (pl: PriorityLevelConfiguration) => v3Fields(base.validate(asV2(pl))),
    validateUpdate: (pl: PriorityLevelConfiguration, old: PriorityLevelConfiguration) => v3Fields(base.validateUpdate(asV2(pl), asV2(old))),
    table: {
      columns: base.table.columns.map((c) => (c.name === 'AssuredConcurrencyShares' ? column('NominalConcurrencyShares', 'string', c.description) : c)),
      cells: (pl: PriorityLevelConfiguration) => base.table.cells(asV2(pl)),
    },
  } satisfies ResourceStrategy<PriorityLevelConfiguration>;
}
