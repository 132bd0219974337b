// Imported first by a test that runs another test file's tests with worker processes: the server
// processes it starts get --worker-isolation=process (see workers-read-consistency.test.ts).
process.env.E2E_WORKER_ISOLATION = 'process';
