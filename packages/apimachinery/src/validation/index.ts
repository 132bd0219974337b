export * from './field-error.js';
export * from './name-rules.js';
export * from './object-meta.js';
export * from './object-meta-update.js';
export * from './configmap.js';
export * from './namespace.js';
export * from './secret.js';
export * from './bootstrap-token.js';
