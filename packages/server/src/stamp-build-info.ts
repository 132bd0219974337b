import { stampBuildInfo } from './build-info.js';

// `make build` runs this after tsc: it records the commit, tree state and date of the build in
// dist/build-info.json, which /version reports.
const info = stampBuildInfo();
process.stdout.write(`build info: ${info.gitCommit || '(no git)'} ${info.gitTreeState || ''} ${info.buildDate}\n`);
