import { StatusError } from '../errors/status-error.js';
import type { JsonValue } from '../meta/types.js';

/** Deep-freezes a JSON value so that any mutation by the code under test throws. */
export function frozen<T extends JsonValue>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const e of Object.values(v)) frozen(e as JsonValue);
    Object.freeze(v);
  }
  return v;
}

/** Runs `fn`, which must throw a StatusError, and returns that error. */
export function statusErrorOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError, got a result');
}
