#!/usr/bin/env node
// The one type generator: writes every generated .proto (proto/generated/) and OpenAPI
// definitions module (packages/apiserver/src/generated/) from upstream's interface files. Only
// interface facts are carried over (names, numbers, wire types, Go shapes, markers, literal
// defaults); no upstream comment or description text. See README.md here.
//
// Usage: node hack/gen-types/generate.mjs <kubernetes/api checkout or bare repo> <k8s.io/api tree of v1.24>
// The output is committed; builds and CI never run this.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assignMessages, checkReferences, handWrittenMessages } from './closure.mjs';
import { definitionsOf, tsModuleText } from './emit-openapi.mjs';
import { protoText } from './emit-proto.mjs';
import { OUTPUTS, SKIPPED_FIELDS } from './outputs.mjs';
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

/** A generated .proto's path as the other .proto files import it (relative to proto/). */
const protoPathOf = (out) => `generated/${out.proto}.generated.proto`;

const packages = readPackages(OUTPUTS, { current, old }, SKIPPED_FIELDS);
const { namesByOutput, declaredIn } = assignMessages(OUTPUTS, packages, handWrittenMessages(PROTO_DIR), protoPathOf);
checkReferences(OUTPUTS, packages, namesByOutput, declaredIn);

// Start from empty output folders, so a file no longer generated does not linger.
for (const dir of [PROTO_OUT, TS_OUT]) {
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.includes('.generated.')) rmSync(join(dir, f));
}

const defsByModule = new Map();
for (const out of OUTPUTS) {
  const names = namesByOutput.get(out);
  const pkgInfo = packages.get(out.pkg);
  writeFileSync(join(PROTO_DIR, protoPathOf(out)), protoText(out, names, pkgInfo, declaredIn, protoPathOf(out)));
  if (!out.ts) continue;
  if (!defsByModule.has(out.ts)) defsByModule.set(out.ts, {});
  Object.assign(defsByModule.get(out.ts), definitionsOf(out, names, pkgInfo));
}
for (const [module, defs] of defsByModule) {
  writeFileSync(join(TS_OUT, `${module.name}.generated.ts`), tsModuleText(module, defs));
  console.log(`${module.name}: ${Object.keys(defs).length} definitions`);
}
console.log(`${OUTPUTS.length} .proto files in proto/generated`);
