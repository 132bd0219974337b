// The tests of watch-cache.test.ts again, with every watch cache keeping its versions in a shared store
// (see held.ts): what a cache answers must not depend on where it keeps them.
import './shared-mode.testutil.js';
import './watch-cache.test.js';
