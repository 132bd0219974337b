// Imported first by a test that runs another test file's tests with the watch caches' shared store
// (--watch-cache-shared-store=true, worker threads): see workers-read-consistency.test.ts.
process.env.E2E_WATCH_CACHE_SHARED_STORE = 'true';
