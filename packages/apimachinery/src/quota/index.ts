export * from './resource-list.js';
export * from './evaluator.js';
export * from './pods.js';
export * from './core-evaluators.js';
export * from './calculate-usage.js';
