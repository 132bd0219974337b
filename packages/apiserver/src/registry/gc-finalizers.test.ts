import { garbageCollectionFinalizers } from './gc-finalizers.js';

// Upstream's deletionFinalizersForGarbageCollection, for kinds whose default policy is Background.
test.each<[string, string[] | undefined, string | undefined, string[] | undefined]>([
  ['no policy, no finalizers: nothing to add', undefined, undefined, undefined],
  ['Background: nothing to add', ['example.com/x'], 'Background', undefined],
  ['Orphan adds orphan', undefined, 'Orphan', ['orphan']],
  ['Orphan keeps other finalizers first', ['example.com/x'], 'Orphan', ['example.com/x', 'orphan']],
  ['Foreground adds foregroundDeletion', undefined, 'Foreground', ['foregroundDeletion']],
  ['Foreground replaces orphan', ['orphan'], 'Foreground', ['foregroundDeletion']],
  ['Orphan replaces foregroundDeletion', ['foregroundDeletion', 'a/b'], 'Orphan', ['a/b', 'orphan']],
  ['Background drops a stale orphan', ['orphan', 'a/b'], 'Background', ['a/b']],
  ['Background drops foregroundDeletion', ['foregroundDeletion'], 'Background', []],
  ['no policy keeps the finalizer the object names', ['orphan'], undefined, undefined],
  ['no policy keeps foregroundDeletion', ['foregroundDeletion'], undefined, undefined],
  ['Orphan again is no change', ['orphan'], 'Orphan', undefined],
])('%s', (_name, finalizers, policy, want) => {
  expect(garbageCollectionFinalizers(finalizers, policy)).toEqual(want);
});

// Kinds whose default is Orphan (core/v1 ReplicationControllers): only when nothing else decides.
test.each<[string, string[] | undefined, string | undefined, string[] | undefined]>([
  ['no policy, no finalizers: orphan', undefined, undefined, ['orphan']],
  ['no policy, other finalizers: orphan added', ['a/b'], undefined, ['a/b', 'orphan']],
  ['no policy, foregroundDeletion on the object wins', ['foregroundDeletion'], undefined, undefined],
  ['Background overrides the default', undefined, 'Background', undefined],
  ['Foreground overrides the default', undefined, 'Foreground', ['foregroundDeletion']],
])('default Orphan: %s', (_name, finalizers, policy, want) => {
  expect(garbageCollectionFinalizers(finalizers, policy, true)).toEqual(want);
});
