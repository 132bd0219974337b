// workers-read-consistency.test.ts with the worker threads keeping their watch caches' objects in
// one shared store (--watch-cache-shared-store=true): each thread still has its own watches and
// revisions over the shared bytes, and whichever worker serves, a read sees the same cache state.
import './support/shared-store-env.js';
import './workers-read-consistency.test.js';
