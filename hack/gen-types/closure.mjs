// Which messages each output writes, and which file declares every message any output uses.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'double', 'bytes', 'float']);

/** `{scalar}` or `{message: full name}` of a field type written in package `pkg`. */
export function resolveType(type, pkg) {
  if (SCALARS.has(type)) return { scalar: type };
  return { message: type.startsWith('.') ? type.slice(1) : `${pkg}.${type}` };
}

/** The element types a field names: its type, or a map's key and value types. */
export function typesOfField(f) {
  return f.type.startsWith('map<') ? /map<\s*([\w.]+),\s*([\w.]+)>/.exec(f.type).slice(1) : [f.type];
}

/** Full message name -> file (relative to proto/) of the hand-written .proto files in `protoDir`. */
export function handWrittenMessages(protoDir) {
  const names = new Map();
  for (const f of readdirSync(protoDir).filter((name) => name.endsWith('.proto')).sort()) {
    const text = readFileSync(join(protoDir, f), 'utf8');
    const pkg = /^package ([\w.]+);/m.exec(text)?.[1];
    for (const m of text.matchAll(/^message (\w+) \{/gm)) names.set(`${pkg}.${m[1]}`, f);
  }
  return names;
}

/**
 * Assigns messages to outputs: each output walks from its roots through messages of its own
 * package, taking those no hand-written file and no earlier output declares. Returns the names
 * per output (sorted) and full name -> declaring file for every message declared anywhere.
 * @throws Error when a root or a referenced message of the package does not exist upstream.
 */
export function assignMessages(outputs, packages, handWritten, protoPathOf) {
  const declaredIn = new Map(handWritten);
  const namesByOutput = new Map();
  for (const out of outputs) {
    const messages = packages.get(out.pkg).messages;
    const names = [];
    const visit = (name) => {
      const full = `${out.pkg}.${name}`;
      if (declaredIn.has(full)) return;
      const fields = messages.get(name);
      if (!fields) throw new Error(`no message ${full} upstream`);
      declaredIn.set(full, protoPathOf(out));
      names.push(name);
      for (const f of fields) {
        for (const t of typesOfField(f)) {
          const r = resolveType(t, out.pkg);
          if (r.message?.startsWith(`${out.pkg}.`)) visit(r.message.slice(out.pkg.length + 1));
        }
      }
    };
    for (const root of out.roots) visit(root);
    namesByOutput.set(out, names.sort());
  }
  return { namesByOutput, declaredIn };
}

/**
 * Every message a written field refers to must be declared by some file (another package's kinds
 * may come later in the list, so this runs once all are assigned).
 * @throws Error naming the first message nothing declares.
 */
export function checkReferences(outputs, packages, namesByOutput, declaredIn) {
  for (const out of outputs) {
    for (const name of namesByOutput.get(out)) {
      for (const f of packages.get(out.pkg).messages.get(name)) {
        for (const t of typesOfField(f)) {
          const r = resolveType(t, out.pkg);
          if (r.message && !declaredIn.has(r.message)) throw new Error(`${out.pkg}.${name}.${f.name}: nothing declares ${r.message}; add it to a root list`);
        }
      }
    }
  }
}

/** The messages of `pkg` (names without the package) that fields of message `name` refer to. */
function ownReferences(pkg, pkgInfo, name) {
  return pkgInfo.messages
    .get(name)
    .flatMap(typesOfField)
    .map((t) => resolveType(t, pkg).message)
    .filter((m) => m?.startsWith(`${pkg}.`))
    .map((m) => m.slice(pkg.length + 1));
}

/**
 * `names` (messages of `out`'s package) reordered so that each comes after the ones it refers to,
 * the sorted order kept otherwise: runs cut from this order import only earlier runs.
 */
export function dependencyOrder(out, names, pkgInfo) {
  const own = new Set(names);
  const seen = new Set();
  const order = [];
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const ref of ownReferences(out.pkg, pkgInfo, name)) if (own.has(ref)) visit(ref);
    order.push(name);
  };
  for (const name of names) visit(name);
  return order;
}

/**
 * The generated .proto files must not import each other in a circle (protoc refuses that):
 * `files` are [{out, path, names}], `declaredIn` maps each full message name to its file.
 * @throws Error naming a file that imports itself through others.
 */
export function checkNoImportCycle(files, packages, declaredIn) {
  const importsOf = new Map(
    files.map(({ out, path, names }) => {
      const pkgInfo = packages.get(out.pkg);
      const refs = names.flatMap((name) => pkgInfo.messages.get(name).flatMap(typesOfField).map((t) => resolveType(t, out.pkg).message));
      return [path, new Set(refs.filter(Boolean).map((m) => declaredIn.get(m)).filter((f) => f !== path))];
    }),
  );
  const done = new Set();
  const visit = (path, open) => {
    if (open.includes(path)) throw new Error(`${path} imports itself through ${open.slice(open.indexOf(path) + 1).join(', ')}`);
    if (done.has(path) || !importsOf.has(path)) return;
    for (const next of importsOf.get(path)) visit(next, [...open, path]);
    done.add(path);
  };
  for (const path of importsOf.keys()) visit(path, []);
}
