#!/usr/bin/env node
// Generates the Protobuf messages (proto/*.proto) and OpenAPI definitions (TypeScript modules) of
// the pod-shaped kinds from upstream's interface description: field names, numbers, wire types,
// Go pointer-ness / omitempty and the list/patch markers. Upstream's prose is not carried over:
// kinds get our own one-line descriptions, nested fields none.
//
// Usage: node hack/gen-workload-types/generate.mjs <dir of a kubernetes/api checkout>
// (or a git dir: GIT_DIR=<mirror> with `--git`). Outputs are committed, so builds need no network.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [source, mode] = process.argv.slice(2);
if (!source) {
  console.error('usage: generate.mjs <kubernetes/api checkout or git dir> [--git]');
  process.exit(2);
}
const readUpstream = (path) =>
  mode === '--git' ? execFileSync('git', ['--git-dir', source, 'show', `HEAD:${path}`], { encoding: 'utf8' }) : readFileSync(join(source, path), 'utf8');

// ---------- parsing ----------

/** Messages of a generated.proto: fields with label, type, name, number and `+marker` lines. */
function parseProto(text) {
  const pkg = /^package ([\w.]+);/m.exec(text)[1];
  const messages = new Map();
  let current;
  let markers = [];
  let messageMarkers = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('//')) {
      const m = /^\/\/\s*\+([\w.:-]+)(?:=(.*))?$/.exec(line);
      if (m) markers.push({ key: m[1], value: m[2] });
      continue;
    }
    let m = /^message (\w+) \{$/.exec(line);
    if (m) {
      current = { name: m[1], fields: [], markers };
      messageMarkers = markers;
      markers = [];
      messages.set(m[1], current);
      continue;
    }
    if (line === '}') {
      current = undefined;
      markers = [];
      continue;
    }
    m = /^(optional|repeated) ([\w.]+) (\w+) = (\d+);$/.exec(line);
    if (m && current) {
      current.fields.push({ label: m[1], type: m[2], name: m[3], number: Number(m[4]), markers });
      markers = [];
      continue;
    }
    m = /^map<(\w+), ([\w.]+)> (\w+) = (\d+);$/.exec(line);
    if (m && current) {
      current.fields.push({ label: 'map', keyType: m[1], type: m[2], name: m[3], number: Number(m[4]), markers });
      markers = [];
      continue;
    }
    if (line === '') continue;
    markers = [];
  }
  void messageMarkers;
  return { pkg, messages };
}

/** Go structs of a types.go: per JSON name, whether the field is a pointer and has omitempty. */
function parseGoTypes(text) {
  const structs = new Map();
  const re = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
  for (const m of text.matchAll(re)) {
    const fields = new Map();
    let typeMeta = false;
    const inlineTypes = new Set();
    for (const line of m[2].split('\n')) {
      const t = line.trim();
      if (/^metav1\.TypeMeta\b/.test(t)) typeMeta = true;
      // An embedded struct whose JSON tag has no name: its fields appear in the parent's JSON.
      const embedded = /^(?:\w+\.)?(\w+)\s+`json:"(?:,inline)?"/.exec(t);
      if (embedded && embedded[1] !== 'TypeMeta') inlineTypes.add(embedded[1]);
      const f = /^(?:(\w+)\s+)?(\*?)([\w.\[\]*]+)\s+`json:"([^"]*)"/.exec(t);
      if (!f) continue;
      const [jsonName, ...opts] = f[4].split(',');
      if (!jsonName) continue;
      fields.set(jsonName, { pointer: f[2] === '*', omitempty: opts.includes('omitempty') || opts.includes('omitzero') });
    }
    structs.set(m[1], { fields, typeMeta, inlineTypes });
  }
  return structs;
}

// ---------- inputs ----------

const groups = {
  core: { path: 'core/v1', ...parseProto(readUpstream('core/v1/generated.proto')), go: parseGoTypes(readUpstream('core/v1/types.go')) },
  apps: { path: 'apps/v1', ...parseProto(readUpstream('apps/v1/generated.proto')), go: parseGoTypes(readUpstream('apps/v1/types.go')) },
  autoscaling: {
    path: 'autoscaling/v1',
    ...parseProto(readUpstream('autoscaling/v1/generated.proto')),
    go: parseGoTypes(readUpstream('autoscaling/v1/types.go')),
  },
};
const byPkg = new Map(Object.values(groups).map((g) => [g.pkg, g]));

/** Messages our hand-written core-v1.proto already declares (shared with the other core kinds). */
const HAND_WRITTEN_CORE = new Set(['ObjectReference', 'LocalObjectReference', 'ConfigMap', 'Secret', 'Namespace', 'ServiceAccount']);
/** Of those, the ones that have OpenAPI definitions of their own already (core/schemas.ts). */
const HAND_WRITTEN_CORE_SCHEMAS = new Set(['ConfigMap', 'Secret', 'Namespace', 'ServiceAccount']);

const ROOTS = {
  core: ['Pod', 'PodList', 'PodTemplate', 'PodTemplateList', 'ReplicationController', 'ReplicationControllerList'],
  apps: [
    'Deployment',
    'DeploymentList',
    'ReplicaSet',
    'ReplicaSetList',
    'StatefulSet',
    'StatefulSetList',
    'DaemonSet',
    'DaemonSetList',
    'ControllerRevision',
    'ControllerRevisionList',
  ],
  autoscaling: ['Scale'],
};

/** Our own one-line descriptions of the top-level kinds. */
const KIND_DESCRIPTIONS = {
  Pod: 'A group of containers scheduled together on one node.',
  PodList: 'The Pods.',
  PodTemplate: 'A stored pod template, for reuse by other objects.',
  PodTemplateList: 'The PodTemplates.',
  ReplicationController: 'Keeps a number of copies of a pod template running (legacy form of ReplicaSet).',
  ReplicationControllerList: 'The ReplicationControllers.',
  Deployment: 'Declarative rollouts of a pod template through ReplicaSets.',
  DeploymentList: 'The Deployments.',
  ReplicaSet: 'Keeps a number of copies of a pod template running.',
  ReplicaSetList: 'The ReplicaSets.',
  StatefulSet: 'Pods with stable identities and storage, created in order.',
  StatefulSetList: 'The StatefulSets.',
  DaemonSet: 'One copy of a pod template per eligible node.',
  DaemonSetList: 'The DaemonSets.',
  ControllerRevision: 'An immutable snapshot of state, kept by controllers for rollbacks.',
  ControllerRevisionList: 'The ControllerRevisions.',
  Scale: 'The replica count of a scalable resource.',
};

/** Splits a (possibly qualified) proto type into package and message name. */
function resolveType(type, pkg) {
  const t = type.startsWith('.') ? type.slice(1) : type;
  const dot = t.lastIndexOf('.');
  if (dot < 0) return { pkg, name: t };
  return { pkg: t.slice(0, dot), name: t.slice(dot + 1) };
}

const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'bytes', 'double', 'float']);

/** Messages to emit per group: the closure of the roots over our three packages. */
function closure() {
  const wanted = { core: new Set(), apps: new Set(), autoscaling: new Set() };
  const groupOfPkg = new Map(Object.entries(groups).map(([k, g]) => [g.pkg, k]));
  const visit = (groupKey, name) => {
    if (wanted[groupKey].has(name)) return;
    const g = groups[groupKey];
    const msg = g.messages.get(name);
    if (!msg) throw new Error(`no message ${g.pkg}.${name}`);
    wanted[groupKey].add(name);
    for (const f of msg.fields) {
      if (SCALARS.has(f.type)) continue;
      const r = resolveType(f.type, g.pkg);
      const gk = groupOfPkg.get(r.pkg);
      if (gk) visit(gk, r.name);
    }
  };
  for (const [gk, roots] of Object.entries(ROOTS)) for (const r of roots) visit(gk, r);
  return wanted;
}

// ---------- proto output ----------

/** True when the proto field stands for a Go struct embedded inline in the JSON form. */
function isInlineField(group, message, field) {
  return !!group.go.get(message)?.inlineTypes.has(resolveType(field.type, group.pkg).name);
}

function goField(group, message, jsonName) {
  return group.go.get(message)?.fields.get(jsonName);
}

function protoFile(groupKey, names, header, imports) {
  const g = groups[groupKey];
  const out = [header, 'syntax = "proto2";', '', `package ${g.pkg};`, '', ...imports.map((i) => `import "${i}";`), ''];
  for (const name of [...names].sort()) {
    if (groupKey === 'core' && HAND_WRITTEN_CORE.has(name)) continue;
    const msg = g.messages.get(name);
    out.push(`message ${name} {`);
    for (const f of msg.fields) {
      const type = SCALARS.has(f.type) || f.type.startsWith('.') ? f.type : f.type.includes('.') ? `.${f.type}` : f.type;
      const go = goField(g, name, f.name);
      const opts = [];
      if (f.label === 'optional' && isInlineField(g, name, f)) {
        opts.push('(cluster.inline) = true');
      } else if (f.label === 'optional') {
        if (go?.pointer) opts.push('(cluster.nullable) = true');
        else if (go && !go.omitempty && SCALARS.has(f.type)) opts.push('(cluster.json_always) = true');
      }
      const suffix = opts.length ? ` [${opts.join(', ')}]` : '';
      if (f.label === 'map') out.push(`  map<${f.keyType}, ${type}> ${f.name} = ${f.number}${suffix};`);
      else out.push(`  ${f.label} ${type} ${f.name} = ${f.number}${suffix};`);
    }
    out.push('}', '');
  }
  return out.join('\n');
}

// ---------- OpenAPI output ----------

function definitionName(pkg, name) {
  // k8s.io.api.core.v1 -> io.k8s.api.core.v1
  return `${pkg.replace(/^k8s\.io\./, 'io.k8s.')}.${name}`;
}

function scalarSchema(type) {
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'bool':
      return { type: 'boolean' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    case 'double':
      return { type: 'number', format: 'double' };
    default:
      return { type: 'number', format: 'float' };
  }
}

function marker(f, key) {
  return f.markers.filter((m) => m.key === key).map((m) => m.value);
}

function defaultOf(f) {
  const [d] = marker(f, 'default');
  if (d === undefined || d.startsWith('ref(')) return undefined;
  try {
    return JSON.parse(d);
  } catch {
    return undefined;
  }
}

function fieldSchema(g, f) {
  const element = SCALARS.has(f.type) ? scalarSchema(f.type) : { $ref: `#/definitions/${definitionName(resolveType(f.type, g.pkg).pkg, resolveType(f.type, g.pkg).name)}` };
  let schema;
  if (f.label === 'map') schema = { type: 'object', additionalProperties: element };
  else if (f.label === 'repeated') schema = { type: 'array', items: element };
  else schema = { ...element };
  const def = defaultOf(f);
  if (def !== undefined) schema.default = def;
  const [listType] = marker(f, 'listType');
  if (listType) schema['x-kubernetes-list-type'] = listType;
  const keys = marker(f, 'listMapKey');
  if (keys.length) schema['x-kubernetes-list-map-keys'] = keys;
  const [mapType] = marker(f, 'mapType');
  if (mapType) schema['x-kubernetes-map-type'] = mapType;
  const [mergeKey] = marker(f, 'patchMergeKey');
  if (mergeKey) schema['x-kubernetes-patch-merge-key'] = mergeKey;
  const [strategy] = marker(f, 'patchStrategy');
  if (strategy) schema['x-kubernetes-patch-strategy'] = strategy;
  return schema;
}

function definitions(groupKey, names, gvkOf) {
  const g = groups[groupKey];
  const defs = {};
  for (const name of [...names].sort()) {
    const schema = defsOf(g, name);
    if (g.go.get(name)?.typeMeta) schema['x-kubernetes-group-version-kind'] = gvkOf(name);
    defs[definitionName(g.pkg, name)] = schema;
  }
  return defs;
}

/** The OpenAPI schema of one message, with inline embedded structs flattened into it. */
function defsOf(g, name) {
  {
    const msg = g.messages.get(name);
    const goStruct = g.go.get(name);
    const props = {};
    const required = [];
    if (goStruct?.typeMeta) {
      props.apiVersion = { type: 'string', description: 'Versioned schema of this representation of an object, as group/version.' };
      props.kind = { type: 'string', description: 'Name of the REST kind this object represents, in CamelCase.' };
    }
    for (const f of msg.fields) {
      if (isInlineField(g, name, f)) {
        const inner = defsOf(g, resolveType(f.type, g.pkg).name);
        Object.assign(props, inner.properties);
        required.push(...(inner.required ?? []));
        continue;
      }
      props[f.name] = fieldSchema(g, f);
      const go = goField(g, name, f.name);
      const optional = marker(f, 'optional').length > 0 || go?.omitempty || go?.pointer;
      if (!optional && f.label !== 'map' && (go || marker(f, 'required').length)) required.push(f.name);
    }
    const sorted = {};
    for (const k of Object.keys(props).sort()) sorted[k] = props[k];
    const schema = { type: 'object', properties: sorted };
    if (KIND_DESCRIPTIONS[name]) schema.description = KIND_DESCRIPTIONS[name];
    if (required.length) schema.required = required.sort();
    const [structType] = msg.markers.filter((m) => m.key === 'structType').map((m) => m.value);
    if (structType) schema['x-kubernetes-map-type'] = structType;
    return schema;
  }
}

function tsModule(doc, fnName, groupExpr, version, defs) {
  const body = JSON.stringify(defs, null, 2)
    .replace(/"x-kubernetes-group-version-kind": \[\s*"GVK:(\w+)"\s*\]/g, (_, kind) => `"x-kubernetes-group-version-kind": [{ group, version: '${version}', kind: '${kind}' }]`);
  return `// Generated by hack/gen-workload-types/generate.mjs from upstream's field list; do not edit by hand.
import type { Definitions } from '../../registry/resource-info.js';

/** ${doc} */
export function ${fnName}(${groupExpr}): Definitions {
  return ${body.replace(/\n/g, '\n  ')};
}
`;
}

const wanted = closure();
const gvkMarker = (name) => [`GVK:${name}`];

const HEADER = (what) =>
  `// Wire-compatible subset of upstream's ${what} (same packages, message names and field numbers),
// generated by hack/gen-workload-types/generate.mjs. Field names are the JSON names; the cluster.*
// options (cluster-options.proto) carry Go's pointer / omitempty shapes for the JSON form.`;

writeFileSync(
  join(repoRoot, 'proto/core-v1-pods.proto'),
  protoFile('core', wanted.core, HEADER('k8s.io/api/core/v1 (pods, pod templates, replication controllers)'), [
    'cluster-options.proto',
    'meta-v1.proto',
    'runtime.proto',
    'apimachinery-intstr.proto',
    'apimachinery-resource.proto',
    'core-v1.proto',
  ]),
);
writeFileSync(
  join(repoRoot, 'proto/apps-v1.proto'),
  protoFile('apps', wanted.apps, HEADER('k8s.io/api/apps/v1'), ['cluster-options.proto', 'meta-v1.proto', 'runtime.proto', 'apimachinery-intstr.proto', 'core-v1-pods.proto']),
);
writeFileSync(
  join(repoRoot, 'proto/autoscaling-v1.proto'),
  protoFile('autoscaling', wanted.autoscaling, HEADER('k8s.io/api/autoscaling/v1 (Scale)'), ['cluster-options.proto', 'meta-v1.proto']),
);

const coreNames = [...wanted.core].filter((n) => !HAND_WRITTEN_CORE_SCHEMAS.has(n));
writeFileSync(
  join(repoRoot, 'packages/apiserver/src/resources/core/pod-schemas.ts'),
  tsModule(
    'OpenAPI definitions of core/v1 Pod, PodTemplate, ReplicationController and every type they embed.',
    'podDefinitions',
    '',
    'v1',
    definitions('core', coreNames, gvkMarker),
  ).replaceAll("[{ group, version: 'v1'", "[{ group: '', version: 'v1'"),
);
writeFileSync(
  join(repoRoot, 'packages/apiserver/src/resources/apps/schemas.ts'),
  tsModule('OpenAPI definitions of apps/v1 (workloads and ControllerRevision) in the given group.', 'appsDefinitions', 'group: string', 'v1', definitions('apps', wanted.apps, gvkMarker)),
);
writeFileSync(
  join(repoRoot, 'packages/apiserver/src/resources/autoscaling/schemas.ts'),
  tsModule('OpenAPI definitions of autoscaling/v1 Scale in the given group.', 'autoscalingDefinitions', 'group: string', 'v1', definitions('autoscaling', wanted.autoscaling, gvkMarker)),
);
console.log(`core ${wanted.core.size}, apps ${wanted.apps.size}, autoscaling ${wanted.autoscaling.size} messages`);
