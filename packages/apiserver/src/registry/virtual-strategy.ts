import type { ResourceStrategy } from './strategy.js';

/**
 * The strategy of a virtual resource type (the review APIs): nothing is stored, so the generic
 * store never calls it; create goes to the registration's `virtual.create`. Validation of a
 * review lives with its create, where upstream's REST storage does it.
 */
export function virtualStrategy(namespaceScoped: boolean): ResourceStrategy {
  return {
    namespaceScoped,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    prepareForCreate() {},
    prepareForUpdate() {},
    validate: () => [],
    validateUpdate: () => [],
  };
}
