import type { KubeObject } from '@cluster/apimachinery';

/** A PriorityClass object (scheduling.<apiDomain>/v1, cluster-scoped). */
export interface PriorityClass extends KubeObject {
  value?: number;
  globalDefault?: boolean;
  description?: string;
  preemptionPolicy?: string;
}

/** Names starting with this are reserved for the system classes below. */
export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';
/** The highest value a class not made by the system may have (upstream's HighestUserDefinablePriority). */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** Upstream's SystemCriticalPriority: twice the highest user-definable value. */
const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;

/** The classes every cluster has, created at start-up and never deleted (upstream's values). */
export const SYSTEM_PRIORITY_CLASSES: ReadonlyArray<{ name: string; value: number; description: string }> = [
  { name: 'system-node-critical', value: SYSTEM_CRITICAL_PRIORITY + 1000, description: 'For pods the cluster needs that must stay on the node they run on.' },
  { name: 'system-cluster-critical', value: SYSTEM_CRITICAL_PRIORITY, description: 'For pods the cluster needs that may move to another node when they must.' },
];

/** True for the name of a system class. */
export function isSystemPriorityClass(name: string): boolean {
  return SYSTEM_PRIORITY_CLASSES.some((c) => c.name === name);
}

/**
 * Upstream's IsKnownSystemPriorityClass: undefined when (name, value, globalDefault) is exactly a
 * system class, else why not.
 */
export function systemClassMismatch(name: string, value: number, globalDefault: boolean): string | undefined {
  const spc = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
  if (!spc) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${spc.name} PriorityClass must be ${spc.value}`;
  if (globalDefault) return `globalDefault of ${spc.name} PriorityClass must be false`;
  return undefined;
}
