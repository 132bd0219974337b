// Imported first by the *.shared.test.ts files: every watch cache created after it keeps its
// versions in a shared store (see held.ts).
import { SharedObjectStore } from './shared-store.js';
import { useSharedStore } from './held.js';

useSharedStore(SharedObjectStore.createBuffer({ initialBytes: 1 << 20 }), 1);
