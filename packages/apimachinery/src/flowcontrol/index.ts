export * from './types.js';
export * from './bootstrap.js';
export * from './semantic.js';
