// workers-read-consistency.test.ts with the workers as processes (--worker-isolation=process),
// each with its own etcd watches and decoded watch caches, as the default threads have:
// whichever worker serves, a read sees the same cache state.
import './support/worker-processes-env.js';
import './workers-read-consistency.test.js';
