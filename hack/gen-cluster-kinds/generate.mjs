#!/usr/bin/env node
// Generates the Protobuf messages (proto/*.proto) and OpenAPI definitions (TypeScript) of the
// cluster kinds of issue 20 (Service, Endpoints, Node, Event, LimitRange, ResourceQuota,
// events/v1 Event and discovery/v1 EndpointSlice) and of issue 31 (batch/v1 Job and CronJob,
// policy/v1 PodDisruptionBudget, networking/v1 Ingress, IngressClass and NetworkPolicy, node/v1
// RuntimeClass) and of issue 30 (flowcontrol v1beta3, v1beta2 and v1beta1) from upstream's interface files: generated.proto gives message and field
// numbers and wire types, types.go gives JSON names, pointer-ness (our `nullable` option),
// omitempty (`json_always`), embedded inline structs (`inline`) and the list/map/patch markers. Only interface facts are carried
// over: no upstream comment or description text is copied into the output.
//
// Usage (needs a checkout of github:kubernetes/api, e.g. the `fetch` tool's mirror, and for the
// removed versions no longer in it (autoscaling/v2beta1) the k8s.io/api tree of a release that had
// them, e.g. staging/src/k8s.io/api of the v1.24 reference source):
//   node hack/gen-cluster-kinds/generate.mjs /path/to/kubernetes-api-checkout /path/to/v1.24/staging/src/k8s.io/api
// The output is committed; CI never runs this (no network there).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const [apiRepo, oldApiRepo] = process.argv.slice(2);
if (!apiRepo || !oldApiRepo) {
  console.error('usage: generate.mjs <kubernetes/api checkout or bare repo> <k8s.io/api tree of v1.24 (removed versions)>');
  process.exit(2);
}
const root = new URL('../../', import.meta.url).pathname;

function upstreamFile(path, repo = apiRepo) {
  const direct = join(repo, path);
  if (existsSync(direct)) return readFileSync(direct, 'utf8');
  return execFileSync('git', ['--git-dir', repo, 'show', `HEAD:${path}`], { encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** message name -> [{label, type, name, number}] from a generated.proto. */
function parseProto(text) {
  const messages = new Map();
  let current;
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
    // Older generated.proto files (v1.24) write full names without the leading dot.
    const qualify = (t) => t.replace(/(^|[<,\s])(k8s\.io\.)/g, '$1.$2');
    if (field) current.push({ label: field[1] ?? '', type: qualify(field[2]), name: field[3], number: Number(field[4]) });
  }
  return messages;
}

/** struct name -> {markers, fields: number -> {json, pointer, omitempty, optional, markers, patch}} from a types.go. */
function parseGoTypes(text) {
  const structs = new Map();
  const lines = text.split('\n');
  let markers = [];
  let current;
  for (const raw of lines) {
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
    if (current) {
      // A named field (`Name Type `tags``) or an embedded struct (`Type `json:""``).
      const named = /^(\w+)\s+(\S+)\s+`(.*)`$/.exec(line);
      const embedded = /^([\w.*]+)\s+`(json:"(?:,inline)?(?:,omitempty)?".*)`$/.exec(line);
      const f = named ?? (embedded && [embedded[0], embedded[1], embedded[1], embedded[2]]);
      if (f) {
        const tags = Object.fromEntries([...f[3].matchAll(/(\w+):"([^"]*)"/g)].map((m) => [m[1], m[2]]));
        if (tags.protobuf) {
          const parts = tags.protobuf.split(',');
          const [json, ...opts] = (tags.json ?? '').split(',');
          current.fields.set(Number(parts[1]), {
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
      }
    }
    // Markers belong to the declaration right below them.
    markers = [];
  }
  return structs;
}

const CORE = { pkg: 'k8s.io.api.core.v1', defPrefix: 'io.k8s.api.core.v1', dir: 'core/v1' };
const EVENTS = { pkg: 'k8s.io.api.events.v1', defPrefix: 'io.k8s.api.events.v1', dir: 'events/v1' };
const DISCOVERY = { pkg: 'k8s.io.api.discovery.v1', defPrefix: 'io.k8s.api.discovery.v1', dir: 'discovery/v1' };
const BATCH = { pkg: 'k8s.io.api.batch.v1', defPrefix: 'io.k8s.api.batch.v1', dir: 'batch/v1' };
const POLICY = { pkg: 'k8s.io.api.policy.v1', defPrefix: 'io.k8s.api.policy.v1', dir: 'policy/v1' };
const NETWORKING = { pkg: 'k8s.io.api.networking.v1', defPrefix: 'io.k8s.api.networking.v1', dir: 'networking/v1' };
const NODE = { pkg: 'k8s.io.api.node.v1', defPrefix: 'io.k8s.api.node.v1', dir: 'node/v1' };
const FLOWCONTROL_V1BETA2 = { pkg: 'k8s.io.api.flowcontrol.v1beta2', defPrefix: 'io.k8s.api.flowcontrol.v1beta2', dir: 'flowcontrol/v1beta2' };
const FLOWCONTROL_V1BETA3 = { pkg: 'k8s.io.api.flowcontrol.v1beta3', defPrefix: 'io.k8s.api.flowcontrol.v1beta3', dir: 'flowcontrol/v1beta3' };
const FLOWCONTROL_V1BETA1 = { pkg: 'k8s.io.api.flowcontrol.v1beta1', defPrefix: 'io.k8s.api.flowcontrol.v1beta1', dir: 'flowcontrol/v1beta1' };
const SCHEDULING = { pkg: 'k8s.io.api.scheduling.v1', defPrefix: 'io.k8s.api.scheduling.v1', dir: 'scheduling/v1' };
const STORAGE = { pkg: 'k8s.io.api.storage.v1', defPrefix: 'io.k8s.api.storage.v1', dir: 'storage/v1' };
const AUTOSCALING_V2 = { pkg: 'k8s.io.api.autoscaling.v2', defPrefix: 'io.k8s.api.autoscaling.v2', dir: 'autoscaling/v2' };
const AUTOSCALING_V1 = { pkg: 'k8s.io.api.autoscaling.v1', defPrefix: 'io.k8s.api.autoscaling.v1', dir: 'autoscaling/v1' };
// Read from the v1.24 tree (second argument): gone from the newest k8s.io/api.
const AUTOSCALING_V2BETA1 = { pkg: 'k8s.io.api.autoscaling.v2beta1', defPrefix: 'io.k8s.api.autoscaling.v2beta1', dir: 'autoscaling/v2beta1', old: true };
const DISCOVERY_V1BETA1 = { pkg: 'k8s.io.api.discovery.v1beta1', defPrefix: 'io.k8s.api.discovery.v1beta1', dir: 'discovery/v1beta1' };
const APPS_V1BETA1 = { pkg: 'k8s.io.api.apps.v1beta1', defPrefix: 'io.k8s.api.apps.v1beta1', dir: 'apps/v1beta1' };
const EXTENSIONS_V1BETA1 = { pkg: 'k8s.io.api.extensions.v1beta1', defPrefix: 'io.k8s.api.extensions.v1beta1', dir: 'extensions/v1beta1' };
const NETWORKING_V1BETA1 = { pkg: 'k8s.io.api.networking.v1beta1', defPrefix: 'io.k8s.api.networking.v1beta1', dir: 'networking/v1beta1' };

// Where the OpenAPI field shapes of each group go (one TypeScript module per entry).
const CLUSTER_KINDS_TS = {
  path: 'packages/apiserver/src/resources/core/cluster-kinds-schemas.generated.ts',
  exportName: 'generatedClusterKindDefinitions',
  what: 'Descriptions and group-version-kind markers of the top-level kinds\n// are added by cluster-kinds-schemas.ts.',
};
const FLOWCONTROL_TS = {
  path: 'packages/apiserver/src/resources/flowcontrol/schemas.generated.ts',
  exportName: 'generatedFlowControlDefinitions',
  what: 'Descriptions and group-version-kind markers of the top-level kinds\n// are added by schemas.ts.',
};
const MORE_KINDS_TS = {
  path: 'packages/apiserver/src/resources/more-kinds-schemas.generated.ts',
  exportName: 'generatedMoreKindDefinitions',
  what: 'Descriptions and group-version-kind markers of the top-level kinds\n// are added by more-kinds-schemas.ts.',
};

/**
 * Fields of upstream's newest types left out: alpha fields behind feature gates that are off by
 * default and reference API groups not served here (batch/v1 JobSpec.scheduling names
 * scheduling.k8s.io/v1alpha3 types). A client sending them gets them dropped, as upstream does
 * with the gate off.
 */
const SKIPPED_FIELDS = new Map([
  ['k8s.io.api.batch.v1.JobSpec', new Set(['scheduling'])],
  // CSINode.status (alpha CSIVolumeHealth): Go writes a value struct always, so every CSINode would read `status: {}`.
  ['k8s.io.api.storage.v1.CSINode', new Set(['status'])],
]);

const groups = [
  {
    ...CORE,
    out: 'proto/core-v1-cluster.proto',
    roots: [
      'Service', 'ServiceList', 'Endpoints', 'EndpointsList', 'Node', 'NodeList', 'Event', 'EventList', 'LimitRange', 'LimitRangeList', 'ResourceQuota', 'ResourceQuotaList',
      'PersistentVolume', 'PersistentVolumeList', 'PersistentVolumeClaim', 'PersistentVolumeClaimList', 'ComponentStatus', 'ComponentStatusList',
      // Used by storage/v1 StorageClass.allowedTopologies only.
      'TopologySelectorTerm',
    ],
  },
  { ...EVENTS, out: 'proto/events-v1.proto', roots: ['Event', 'EventList'] },
  { ...DISCOVERY, out: 'proto/discovery-v1.proto', roots: ['EndpointSlice', 'EndpointSliceList'] },
  { ...BATCH, out: 'proto/batch-v1.proto', ts: MORE_KINDS_TS, roots: ['Job', 'JobList', 'CronJob', 'CronJobList'] },
  { ...POLICY, out: 'proto/policy-v1.proto', ts: MORE_KINDS_TS, roots: ['PodDisruptionBudget', 'PodDisruptionBudgetList'] },
  {
    ...NETWORKING,
    out: 'proto/networking-v1.proto',
    ts: MORE_KINDS_TS,
    roots: ['Ingress', 'IngressList', 'IngressClass', 'IngressClassList', 'NetworkPolicy', 'NetworkPolicyList'],
  },
  { ...NODE, out: 'proto/node-v1.proto', ts: MORE_KINDS_TS, roots: ['RuntimeClass', 'RuntimeClassList'] },
  ...[FLOWCONTROL_V1BETA3, FLOWCONTROL_V1BETA2, FLOWCONTROL_V1BETA1].map((g) => ({
    ...g,
    out: `proto/flowcontrol-${g.dir.split('/')[1]}.proto`,
    ts: FLOWCONTROL_TS,
    roots: ['FlowSchema', 'FlowSchemaList', 'PriorityLevelConfiguration', 'PriorityLevelConfigurationList'],
  })),
  { ...SCHEDULING, out: 'proto/scheduling-v1.proto', ts: MORE_KINDS_TS, roots: ['PriorityClass', 'PriorityClassList'] },
  {
    ...STORAGE,
    out: 'proto/storage-v1.proto',
    ts: MORE_KINDS_TS,
    roots: ['StorageClass', 'StorageClassList', 'CSIDriver', 'CSIDriverList', 'CSINode', 'CSINodeList', 'VolumeAttachment', 'VolumeAttachmentList', 'CSIStorageCapacity', 'CSIStorageCapacityList'],
  },
  { ...AUTOSCALING_V2, out: 'proto/autoscaling-v2.proto', ts: MORE_KINDS_TS, roots: ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList'] },
  // Scale and its parts live in autoscaling-v1.proto (gen-workload-types); this file adds the HPA.
  { ...AUTOSCALING_V1, out: 'proto/autoscaling-v1-hpa.proto', ts: MORE_KINDS_TS, roots: ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList'] },
  // Removed version served again through --runtime-config (SPEC 9.4): backend/serviceName/servicePort.
  { ...NETWORKING_V1BETA1, out: 'proto/networking-v1beta1.proto', ts: MORE_KINDS_TS, roots: ['Ingress', 'IngressList', 'IngressClass', 'IngressClassList'] },
  { ...EXTENSIONS_V1BETA1, out: 'proto/extensions-v1beta1.proto', ts: MORE_KINDS_TS, roots: ['Ingress', 'IngressList', 'NetworkPolicy', 'NetworkPolicyList', 'Deployment', 'DeploymentList', 'DaemonSet', 'DaemonSetList', 'ReplicaSet', 'ReplicaSetList'] },
  { ...APPS_V1BETA1, out: 'proto/apps-v1beta1.proto', ts: MORE_KINDS_TS, roots: ['Deployment', 'DeploymentList', 'StatefulSet', 'StatefulSetList', 'ControllerRevision', 'ControllerRevisionList'] },
  { ...DISCOVERY_V1BETA1, out: 'proto/discovery-v1beta1.proto', ts: MORE_KINDS_TS, roots: ['EndpointSlice', 'EndpointSliceList'] },
  { ...AUTOSCALING_V2BETA1, out: 'proto/autoscaling-v2beta1.proto', ts: MORE_KINDS_TS, roots: ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList'] },
];

// Messages some .proto file here already defines (full name -> file): referenced, never emitted again.
function existingMessages() {
  const names = new Map();
  const files = execFileSync('ls', [join(root, 'proto')], { encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.proto'));
  for (const f of files) {
    if (groups.some((g) => g.out === `proto/${f}`)) continue;
    const text = readFileSync(join(root, 'proto', f), 'utf8');
    const pkg = /^package ([\w.]+);/m.exec(text)?.[1];
    for (const m of text.matchAll(/^message (\w+) \{/gm)) names.set(`${pkg}.${m[1]}`, f);
  }
  return names;
}

const META_PKG = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'double', 'bytes', 'float']);

function resolveType(type, group) {
  if (SCALARS.has(type)) return { scalar: type };
  const full = type.startsWith('.') ? type.slice(1) : `${group.pkg}.${type}`;
  return { message: full };
}

/** Upstream's OpenAPI names put the domain first, reversed: k8s.io.api.core.v1.X is io.k8s.api.core.v1.X. */
function definitionName(fullMessage) {
  if (!fullMessage.startsWith('k8s.io.')) throw new Error(`unexpected package of ${fullMessage}`);
  return `io.k8s.${fullMessage.slice('k8s.io.'.length)}`;
}

const existing = existingMessages();
const protoByPkg = new Map();
const goByPkg = new Map();
// Each upstream package once (several output groups may share one).
for (const g of new Map(groups.map((group) => [group.pkg, group])).values()) {
  const messages = parseProto(upstreamFile(`${g.dir}/generated.proto`, g.old ? oldApiRepo : apiRepo));
  for (const [name, fields] of messages) {
    const skipped = SKIPPED_FIELDS.get(`${g.pkg}.${name}`);
    if (skipped) messages.set(name, fields.filter((f) => !skipped.has(f.name)));
  }
  protoByPkg.set(g.pkg, messages);
  goByPkg.set(g.pkg, parseGoTypes(upstreamFile(`${g.dir}/types.go`, g.old ? oldApiRepo : apiRepo)));
}

/** Walks from the roots through every message of the group's own package. */
function closure(group) {
  const messages = protoByPkg.get(group.pkg);
  const seen = new Set();
  const order = [];
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    const fields = messages.get(name);
    if (!fields) throw new Error(`no message ${group.pkg}.${name}`);
    order.push(name);
    for (const f of fields) {
      const types = f.type.startsWith('map<') ? /map<\s*([\w.]+),\s*([\w.]+)>/.exec(f.type).slice(1) : [f.type];
      for (const t of types) {
        const r = resolveType(t, group);
        if (r.message && r.message.startsWith(`${group.pkg}.`)) {
          const local = r.message.slice(group.pkg.length + 1);
          if (!existing.has(r.message)) visit(local);
        } else if (r.message && r.message.startsWith('k8s.io.api.core.v1.') && group.pkg !== CORE.pkg) {
          // Messages of core/v1 used by another group come from the core file.
        }
      }
    }
  };
  // A root another file already defines (core PersistentVolumeClaim, in core-v1-pods.proto) is referenced, not emitted.
  for (const r of group.roots) if (!existing.has(`${group.pkg}.${r}`)) visit(r);
  return order.sort();
}

function goFieldsOf(pkg, message) {
  const s = goByPkg.get(pkg).get(message);
  return s ?? { markers: [], fields: new Map() };
}

function protoFile(group, names) {
  const out = [];
  out.push('// Generated by hack/gen-cluster-kinds/generate.mjs from the field numbers and wire types of');
  out.push(`// upstream's ${group.dir}/generated.proto and the JSON tags of its types.go. Do not edit by hand.`);
  out.push('// Field names are the JSON names; see cluster-options.proto for the options.');
  out.push('syntax = "proto2";', '', `package ${group.pkg};`, '');
  const imports = new Set(['cluster-options.proto', 'meta-v1.proto']);
  const body = [];
  for (const name of names) {
    const fields = protoByPkg.get(group.pkg).get(name);
    const go = goFieldsOf(group.pkg, name);
    body.push(`message ${name} {`);
    for (const f of [...fields].sort((a, b) => a.number - b.number)) {
      const gf = go.fields.get(f.number);
      const json = gf?.json || f.name;
      const opts = [];
      if (gf?.inline) opts.push('(cluster.inline) = true');
      else if (gf?.pointer && !f.type.startsWith('map<') && f.label !== 'repeated') opts.push('(cluster.nullable) = true');
      if (gf && !gf.inline && !gf.omitempty && !gf.pointer && f.label !== 'repeated' && !f.type.startsWith('map<')) opts.push('(cluster.json_always) = true');
      let type = f.type;
      for (const t of type.match(/\.?k8s\.io\.[\w.]+/g) ?? []) {
        const file = existing.get(t.replace(/^\./, ''));
        if (file) imports.add(file);
      }
      if (type.includes('intstr')) imports.add('apimachinery-intstr.proto');
      if (type.includes('api.resource')) imports.add('apimachinery-resource.proto');
      if (type.includes('k8s.io.api.core.v1') && group.pkg !== CORE.pkg) {
        imports.add('core-v1.proto');
        imports.add('core-v1-cluster.proto');
      }
      const label = type.startsWith('map<') ? '' : `${f.label || 'optional'} `;
      body.push(`  ${label}${type} ${json} = ${f.number}${opts.length ? ` [${opts.join(', ')}]` : ''};`);
    }
    body.push('}', '');
  }
  if (group.pkg === CORE.pkg) imports.add('core-v1.proto');
  for (const i of [...imports].sort()) out.push(`import "${i}";`);
  out.push('', ...body);
  return out.join('\n').replace(/\n+$/, '\n');
}

function scalarSchema(scalar) {
  switch (scalar) {
    case 'string':
      return { type: 'string' };
    case 'int32':
    case 'int64':
      return { type: 'integer', format: scalar };
    case 'bool':
      return { type: 'boolean' };
    case 'double':
    case 'float':
      return { type: 'number', format: 'double' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
  }
  throw new Error(scalar);
}

function typeSchema(type, group) {
  const r = resolveType(type, group);
  if (r.scalar) return scalarSchema(r.scalar);
  return { $ref: `#/definitions/${definitionName(r.message)}` };
}

/** JSON properties and required names of a message; embedded inline structs add theirs. */
function propertiesOf(group, name) {
  const fields = protoByPkg.get(group.pkg).get(name);
  const go = goFieldsOf(group.pkg, name);
  const props = {};
  const required = [];
  for (const f of fields) {
    const gf = go.fields.get(f.number);
    const json = gf?.json || f.name;
    if (gf?.inline) {
      const inner = propertiesOf(group, resolveType(f.type, group).message.slice(group.pkg.length + 1));
      Object.assign(props, inner.props);
      required.push(...inner.required);
      continue;
    }
    let schema;
    if (f.type.startsWith('map<')) {
      const [, , v] = /map<\s*([\w.]+),\s*([\w.]+)>/.exec(f.type);
      schema = { type: 'object', additionalProperties: typeSchema(v, group) };
    } else if (f.label === 'repeated') {
      schema = { type: 'array', items: typeSchema(f.type, group) };
    } else {
      schema = typeSchema(f.type, group);
    }
    for (const [k, v] of gf?.markers ?? []) {
      if (k === 'listType') schema['x-kubernetes-list-type'] = v;
      if (k === 'listMapKey') (schema['x-kubernetes-list-map-keys'] ??= []).push(v);
      if (k === 'mapType') schema['x-kubernetes-map-type'] = v;
      // Literal defaults only (ref(...) names a Go constant); server-side apply needs them for
      // list-map keys a client may leave out (ServicePort.protocol).
      if (k === 'default' && !v.startsWith('ref(')) schema.default = JSON.parse(v);
    }
    if (gf?.patchStrategy) schema['x-kubernetes-patch-strategy'] = gf.patchStrategy;
    if (gf?.patchMergeKey) schema['x-kubernetes-patch-merge-key'] = gf.patchMergeKey;
    props[json] = schema;
    if (gf && !gf.omitempty && !gf.optional && !gf.pointer) required.push(json);
  }
  return { props, required };
}

function definitionsOf(group, names) {
  const defs = {};
  for (const name of names) {
    const go = goFieldsOf(group.pkg, name);
    const { props, required } = propertiesOf(group, name);
    const def = { type: 'object', properties: Object.fromEntries(Object.entries(props).sort(([a], [b]) => (a < b ? -1 : 1))) };
    if (required.length) def.required = required.sort();
    for (const [k, v] of go.markers) {
      if (k === 'structType' && v === 'atomic') def['x-kubernetes-map-type'] = 'atomic';
    }
    defs[`${group.defPrefix}.${name}`] = def;
  }
  return defs;
}

const defsByModule = new Map();
for (const group of groups) {
  const names = closure(group);
  writeFileSync(join(root, group.out), protoFile(group, names));
  const ts = group.ts ?? CLUSTER_KINDS_TS;
  if (!defsByModule.has(ts)) defsByModule.set(ts, {});
  Object.assign(defsByModule.get(ts), definitionsOf(group, names));
}

for (const [ts, defs] of defsByModule) {
  const registryPath = relative(dirname(join(root, ts.path)), join(root, 'packages/apiserver/src/registry/resource-info.js'));
  const text = `// Generated by hack/gen-cluster-kinds/generate.mjs from upstream's interface files (field names,
// types and list/map/patch markers only; no descriptions). Do not edit by hand: change the
// generator and run it again. ${ts.what}
import type { Definitions } from '${registryPath.startsWith('.') ? registryPath : `./${registryPath}`}';

export const ${ts.exportName}: Definitions = ${JSON.stringify(defs, null, 2)};
`;
  writeFileSync(join(root, ts.path), text);
  console.log(`wrote ${Object.keys(defs).length} definitions to ${ts.path}`);
}
