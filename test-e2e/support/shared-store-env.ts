// Imported first by a test that runs another test file's tests with worker threads keeping decoded
// watch caches of their own (--watch-cache-shared-store=false; the store is the threads' default):
// see workers-read-consistency.test.ts and workers-selectors.test.ts.
process.env.E2E_WATCH_CACHE_SHARED_STORE = 'false';
