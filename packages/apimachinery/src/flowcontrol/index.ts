export * from './types.js';
export * from './bootstrap.js';
