// workers-read-consistency.test.ts with the workers as threads (--worker-isolation=thread), whose
// watch caches keep their object versions in one shared store (--watch-cache-shared-store, on by
// default): whichever thread serves, a read sees the same cache state.
import './support/worker-threads-env.js';
import './workers-read-consistency.test.js';
