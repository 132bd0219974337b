// Reading upstream's interface files: a package's generated.proto (messages, field numbers, wire
// types) and its types.go (JSON names, pointer-ness, omitempty, inline embedding, +markers).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A file of a k8s.io/api tree: a checked-out directory, or else a bare git repository's HEAD. */
export function upstreamFile(repo, path) {
  const direct = join(repo, path);
  if (existsSync(direct)) return readFileSync(direct, 'utf8');
  return execFileSync('git', ['--git-dir', repo, 'show', `HEAD:${path}`], { encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** message name -> [{label, type, name, number}] from a generated.proto (comments are skipped). */
export function parseProto(text) {
  const messages = new Map();
  let current;
  // Older generated.proto files (v1.24) write full names without the leading dot.
  const qualify = (t) => t.replace(/(^|[<,\s])(k8s\.io\.)/g, '$1.$2');
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('//')) continue;
    const open = /^message (\w+) \{$/.exec(line);
    if (open) {
      current = [];
      messages.set(open[1], current);
      continue;
    }
    if (line === '}') {
      current = undefined;
      continue;
    }
    if (!current) continue;
    const field = /^(optional|repeated)?\s*(map<[^>]+>|[\w.]+) (\w+) = (\d+);$/.exec(line);
    if (field) current.push({ label: field[1] ?? '', type: qualify(field[2]), name: field[3], number: Number(field[4]) });
  }
  return messages;
}

/**
 * struct name -> {markers, fields} from a types.go, where fields maps a protobuf field number to
 * {json, goType, pointer, omitempty, inline, optional, markers, patchStrategy, patchMergeKey}.
 * `+marker` comment lines belong to the declaration right below them.
 */
export function parseGoTypes(text) {
  const structs = new Map();
  let markers = [];
  let current;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('//')) {
      const m = /^\/\/ \+([\w.-]+)(?:=(.*))?$/.exec(line);
      if (m) markers.push([m[1], m[2] ?? '']);
      continue;
    }
    const open = /^type (\w+) struct \{$/.exec(line);
    if (open) {
      current = { markers, fields: new Map() };
      structs.set(open[1], current);
      markers = [];
      continue;
    }
    if (line === '}') {
      current = undefined;
      markers = [];
      continue;
    }
    if (current) addGoField(current, line, markers);
    markers = [];
  }
  return structs;
}

/** Records one struct line: a named field (`Name Type `tags``) or an embedded struct (`Type `json:""``). */
function addGoField(struct, line, markers) {
  const named = /^(\w+)\s+(\S+)\s+`(.*)`$/.exec(line);
  const embedded = /^([\w.*]+)\s+`(json:"(?:,inline)?(?:,omitempty)?".*)`$/.exec(line);
  const f = named ?? (embedded && [embedded[0], embedded[1], embedded[1], embedded[2]]);
  if (!f) return;
  const tags = Object.fromEntries([...f[3].matchAll(/(\w+):"([^"]*)"/g)].map((m) => [m[1], m[2]]));
  // TypeMeta and other fields without a protobuf tag are not on the wire.
  if (!tags.protobuf) return;
  const [json, ...opts] = (tags.json ?? '').split(',');
  struct.fields.set(Number(tags.protobuf.split(',')[1]), {
    json,
    goType: f[2],
    pointer: f[2].startsWith('*'),
    omitempty: opts.includes('omitempty'),
    inline: !named && json === '',
    optional: markers.some(([k]) => k === 'optional'),
    markers,
    patchStrategy: tags.patchStrategy,
    patchMergeKey: tags.patchMergeKey,
  });
}

/**
 * Reads every upstream package the outputs name, once each: pkg -> {messages, go}. Fields listed
 * in `skipped` (full message name -> field names) are dropped from the messages.
 */
export function readPackages(outputs, repos, skipped) {
  const packages = new Map();
  for (const out of outputs) {
    if (packages.has(out.pkg)) continue;
    const repo = out.old ? repos.old : repos.current;
    const messages = parseProto(upstreamFile(repo, `${out.dir}/generated.proto`));
    for (const [name, fields] of messages) {
      const drop = skipped.get(`${out.pkg}.${name}`);
      if (drop) messages.set(name, fields.filter((f) => !drop.has(f.name)));
    }
    packages.set(out.pkg, { messages, go: parseGoTypes(upstreamFile(repo, `${out.dir}/types.go`)) });
  }
  return packages;
}
