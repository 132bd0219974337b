// The tests of consistent-list.test.ts again, with every watch cache keeping its versions in a shared store
// (see cacher/held.ts): what a cache answers must not depend on where it keeps them.
import '../../src/cacher/shared-mode.testutil.js';
import './consistent-list.test.js';
