import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { Root, Type } from 'protobufjs';

/** Sub-directory of `proto/` with the files hack/gen-types writes (`*.generated.proto`). */
const GENERATED_DIR = 'generated';

/**
 * The .proto files to parse, as paths relative to the `proto/` directory: runtime and meta first,
 * then the other hand-written files and those of `proto/generated/`, each by name, so that adding
 * a kind's file needs no edit here. cluster-options.proto is left out: it only extends
 * google/protobuf/descriptor.proto, and protobufjs keeps custom field options as plain `(name)`
 * keys without it.
 */
function protoFiles(protoDir: string): string[] {
  const first = ['runtime.proto', 'meta-v1.proto'];
  const inDir = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.proto')).sort() : []);
  const handWritten = inDir(protoDir).filter((f) => !first.includes(f) && f !== 'cluster-options.proto');
  const generated = inDir(join(protoDir, GENERATED_DIR)).map((f) => join(GENERATED_DIR, f));
  return [...first, ...handWritten, ...generated];
}

/**
 * Finds the repository's `proto/` directory by walking up from this module, so the same code works
 * from `src/` (tests) and from `dist/src/` (the build).
 * @throws Error when no ancestor directory holds `proto/meta-v1.proto`.
 */
export function findProtoDir(startFile: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(startFile);
  for (;;) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, 'meta-v1.proto'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no proto/ directory above ${startFile}`);
    dir = parent;
  }
}

/**
 * Parses the .proto files into one protobufjs Root. Files are parsed one by one into the shared
 * root rather than loaded with imports, and references are resolved once all are in.
 * @throws Error on a syntax error or an unresolvable type reference.
 */
export function loadProtoRoot(protoDir: string = findProtoDir()): Root {
  const root = new protobuf.Root();
  for (const file of protoFiles(protoDir)) {
    const source = readFileSync(join(protoDir, file), 'utf8');
    protobuf.parse(source, root, { keepCase: true });
  }
  root.resolveAll();
  return root;
}

let cached: Root | undefined;

/**
 * The shared Root, parsed on first use. It is immutable after loading, so caching it is a constant
 * rather than state; parsing lazily keeps importing the package free of file reads.
 */
export function protoRoot(): Root {
  cached ??= loadProtoRoot();
  return cached;
}

/**
 * Looks up a message type by its full name (package + message).
 * @throws Error when the type is missing (a bug in the registry table, not a client error).
 */
export function messageType(fullName: string): Type {
  return protoRoot().lookupType(fullName);
}

/** Package names of the .proto files, as upstream's. */
export const META_V1 = 'k8s.io.apimachinery.pkg.apis.meta.v1';
export const RUNTIME = 'k8s.io.apimachinery.pkg.runtime';
