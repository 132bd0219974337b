// workers-read-consistency.test.ts with the worker threads keeping decoded watch caches of their
// own (--watch-cache-shared-store=false) instead of the shared store they use by default: whichever
// worker serves, a read sees the same cache state in both modes.
import './support/shared-store-env.js';
import './workers-read-consistency.test.js';
