// The command-line conventions every bench script shares: `--name=value` options, `--main=<main.js>`
// for the build under test (default: this tree's), and replica flags after a lone `--`.
import { join, resolve } from 'node:path';
import { repoRoot } from './processes.mjs';

const argv = process.argv.slice(2);

/** The value of `--name=value`, or `dflt` when the option is absent. */
export function arg(name, dflt) {
  const found = argv.find((x) => x.startsWith(`--${name}=`));
  return found === undefined ? dflt : found.slice(name.length + 3);
}

/** The server build to run: `--main=<path>`, else this tree's compiled main.js. */
export function mainArg() {
  return resolve(arg('main', join(repoRoot, 'packages', 'server', 'dist', 'src', 'main.js')));
}

/** The replica flags after a lone `--`, if any. */
export function replicaArgs() {
  const dashes = argv.indexOf('--');
  return dashes >= 0 ? argv.slice(dashes + 1) : [];
}
