// workers-read-consistency.test.ts with the workers as processes (--worker-isolation=process),
// each with its own decoded watch caches; the default, threads, keep theirs in one shared store
// (--watch-cache-shared-store): whichever worker serves, a read sees the same cache state.
import './support/worker-processes-env.js';
import './workers-read-consistency.test.js';
