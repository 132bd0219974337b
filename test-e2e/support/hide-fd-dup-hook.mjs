// For test-e2e/workers-default.test.ts, loaded with `node --import`: the server finds no fd_dup
// addon (as on a machine where `make build` had no C compiler), so a replica asked for worker
// threads must fall back to worker processes. It hides only that file from fs.existsSync, which
// the server's nativeAddon() asks, in every thread and process the option reaches.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const existsSync = fs.existsSync;
fs.existsSync = (path) => (String(path).endsWith('/fd_dup.node') ? false : existsSync(path));
// ES modules' `import { existsSync } from 'node:fs'` see the replacement too.
syncBuiltinESMExports();
