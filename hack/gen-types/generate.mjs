#!/usr/bin/env node
// The one type generator: writes every generated .proto (proto/generated/) and OpenAPI
// definitions module (packages/apiserver/src/generated/) from upstream's interface files. Only
// interface facts are carried over (names, numbers, wire types, Go shapes, markers, literal
// defaults); no upstream comment or description text. See README.md here.
//
// Usage: node hack/gen-types/generate.mjs <kubernetes/api checkout or bare repo> <k8s.io/api tree of v1.24>
// The output is committed; builds and CI never run this.
import { mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assignMessages, checkNoImportCycle, checkReferences, dependencyOrder, handWrittenMessages } from './closure.mjs';
import { definitionLines, definitionsOf, PART_OVERHEAD, tsIndexText, tsPartText } from './emit-openapi.mjs';
import { messageLineCount, protoText } from './emit-proto.mjs';
import { OUTPUTS, SKIPPED_FIELDS } from './outputs.mjs';
import { cutIntoRuns, MAX_LINES, runNames } from './split.mjs';
import { readPackages } from './upstream.mjs';

const [current, old] = process.argv.slice(2);
if (!current || !old) {
  console.error('usage: generate.mjs <kubernetes/api checkout or bare repo> <k8s.io/api tree of v1.24 (removed versions)>');
  process.exit(2);
}
const root = new URL('../../', import.meta.url).pathname;
const PROTO_DIR = join(root, 'proto');
const PROTO_OUT = join(PROTO_DIR, 'generated');
const TS_OUT = join(root, 'packages/apiserver/src/generated');
/** Lines of a .proto besides its messages: header, syntax, package and (a bound on) imports. */
const PROTO_OVERHEAD = 40;

/** A generated .proto's path as the other .proto files import it (relative to proto/). */
const protoPathOf = (name) => `generated/${name}.generated.proto`;

const packages = readPackages(OUTPUTS, { current, old }, SKIPPED_FIELDS);
const { namesByOutput, declaredIn } = assignMessages(OUTPUTS, packages, handWrittenMessages(PROTO_DIR), (out) => protoPathOf(out.proto));
checkReferences(OUTPUTS, packages, namesByOutput, declaredIn);

// An output too long for one .proto is cut into runs of its messages, each a file of its own,
// in dependency order so that a run imports only earlier ones; every message is then declared in
// its run's file (the imports follow).
const protoFiles = [];
for (const out of OUTPUTS) {
  const pkgInfo = packages.get(out.pkg);
  const linesOf = (name) => messageLineCount(name, pkgInfo);
  const budget = MAX_LINES - PROTO_OVERHEAD;
  const names = namesByOutput.get(out);
  let runs = cutIntoRuns(names, linesOf, budget);
  if (runs.length > 1) runs = cutIntoRuns(dependencyOrder(out, names, pkgInfo), linesOf, budget);
  runNames(out.proto, runs.length).forEach((name, i) => {
    for (const message of runs[i]) declaredIn.set(`${out.pkg}.${message}`, protoPathOf(name));
    protoFiles.push({ out, path: protoPathOf(name), names: runs[i] });
  });
}
checkNoImportCycle(protoFiles, packages, declaredIn);

/** Removes the generated files below `dir`, and the folders that leaves empty, so a dropped output leaves nothing. */
function clearGenerated(dir) {
  mkdirSync(dir, { recursive: true });
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      clearGenerated(path);
      if (readdirSync(path).length === 0) rmdirSync(path);
    } else if (e.name.includes('.generated.')) rmSync(path);
  }
}
clearGenerated(PROTO_OUT);
clearGenerated(TS_OUT);

/** Writes one generated file, refusing one longer than a file may be. */
function write(path, text) {
  const lines = text.split('\n').length - 1;
  if (lines > MAX_LINES) throw new Error(`${path}: ${lines} lines, more than ${MAX_LINES}; cut it finer`);
  writeFileSync(path, text);
}

for (const { out, path, names } of protoFiles) write(join(PROTO_DIR, path), protoText(out, names, packages.get(out.pkg), declaredIn, path));

// Each TypeScript module is an index over parts in a folder of its own: one part per output (an
// upstream package's group-version), cut into runs where it is too long for one file.
const partsByModule = new Map();
for (const out of OUTPUTS.filter((o) => o.ts)) {
  const module = out.ts;
  const entries = Object.entries(definitionsOf(out, namesByOutput.get(out), packages.get(out.pkg)));
  const runs = cutIntoRuns(entries, ([name, def]) => definitionLines(name, def).length, MAX_LINES - PART_OVERHEAD);
  if (!partsByModule.has(module)) partsByModule.set(module, []);
  runNames(out.proto, runs.length).forEach((part, i) => {
    mkdirSync(join(TS_OUT, module.name), { recursive: true });
    write(join(TS_OUT, module.name, `${part}.generated.ts`), tsPartText(module, out, runs[i]));
    partsByModule.get(module).push(part);
  });
}
for (const [module, parts] of partsByModule) {
  write(join(TS_OUT, `${module.name}.generated.ts`), tsIndexText(module, parts));
  console.log(`${module.name}: ${parts.length} parts`);
}
console.log(`${protoFiles.length} .proto files in proto/generated`);
