// The tests of partial-object-metadata.test.ts again, with the watch caches keeping their versions in
// a shared store (as worker threads do, see held.ts): metadata-only watch events are then made from
// the stored JSON of the objects' metadata.
import '../../../storage/src/cacher/shared-mode.testutil.js';
import './partial-object-metadata.test.js';
