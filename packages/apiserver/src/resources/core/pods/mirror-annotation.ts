import { forbidden, invalid, key, type FieldErrorList } from '@cluster/apimachinery';
import type { Pod } from '../pod-spec/types.js';

const PATH = 'metadata.annotations';

/** The annotation that marks a mirror pod (a node agent's report of a static pod): `<apiDomain>/config.mirror`. */
export const mirrorAnnotationKey = (apiDomain: string) => `${apiDomain}/config.mirror`;

/** A mirror pod must be bound to a node (upstream ValidatePodSpecificAnnotations). Pure. */
export function validateMirrorAnnotation(pod: Pod, annotationKey: string): FieldErrorList {
  const value = pod.metadata?.annotations?.[annotationKey];
  if (value === undefined || pod.spec?.nodeName) return [];
  return [invalid(key(PATH, annotationKey), value, 'must set spec.nodeName if mirror pod annotation is set')];
}

/**
 * No update of a pod (its spec, `status` or `ephemeralcontainers`) may add, remove or change the
 * mirror annotation (upstream ValidatePodSpecificAnnotationUpdates): the Node authorizer grants a
 * node nothing through a mirror pod, and NodeRestriction lets a node create only mirror pods, so
 * a node that could drop the annotation from its own mirror pod would reach what it names. Pure.
 */
export function validateMirrorAnnotationUpdate(pod: Pod, old: Pod, annotationKey: string): FieldErrorList {
  const next = pod.metadata?.annotations?.[annotationKey];
  const prev = old.metadata?.annotations?.[annotationKey];
  const errs: FieldErrorList = [];
  if (prev !== undefined && next !== prev) errs.push(forbidden(key(PATH, annotationKey), 'may not remove or update mirror pod annotation'));
  if (prev === undefined && next !== undefined) errs.push(forbidden(key(PATH, annotationKey), 'may not add mirror pod annotation'));
  return [...errs, ...validateMirrorAnnotation(pod, annotationKey)];
}
