// Imported first by a test that runs another test file's tests with worker threads: the server
// processes it starts get --worker-isolation=thread (see workers-read-consistency.test.ts).
process.env.E2E_WORKER_ISOLATION = 'thread';
