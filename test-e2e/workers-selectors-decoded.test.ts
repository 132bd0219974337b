// workers-selectors.test.ts with the worker threads keeping decoded watch caches of their own
// (--watch-cache-shared-store=false): selectors answer the same in both modes.
import './support/shared-store-env.js';
import './workers-selectors.test.js';
