import type { RequestInfo } from '../request/request-info.js';

/** Upstream's list work estimator: one seat per 100 objects a list handles, between 1 and 10. */
export const MIN_SEATS = 1;
export const MAX_SEATS = 10;
const OBJECTS_PER_SEAT = 100;

/**
 * Seats a request occupies while it runs. A list costs by the objects it goes through: the stored
 * count of its resource (when known), or its `limit` when smaller and the list is not filtered by
 * selectors (a filtered list still reads everything). Everything else takes one seat. Pure.
 */
export function estimateSeats(info: Pick<RequestInfo, 'verb' | 'isResourceRequest'>, query: URLSearchParams | undefined, objectCount: number | undefined): number {
  if (!info.isResourceRequest || info.verb !== 'list' || objectCount === undefined) return MIN_SEATS;
  let objects = objectCount;
  const limit = Number(query?.get('limit') ?? '');
  const filtered = Boolean(query?.get('labelSelector') || query?.get('fieldSelector'));
  if (!filtered && Number.isInteger(limit) && limit > 0 && limit < objects) objects = limit;
  return Math.min(MAX_SEATS, Math.max(MIN_SEATS, Math.ceil(objects / OBJECTS_PER_SEAT)));
}
