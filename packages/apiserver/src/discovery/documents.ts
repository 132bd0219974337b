import { parseApiVersion, type JsonObject } from '@cluster/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import { storageVersionHash } from './storage-version-hash.js';
import { compareVersionPriority } from './version-priority.js';
import { API_LEVEL, serverGitVersion, UNKNOWN_BUILD, type BuildInfo } from './server-version.js';

/** A named API group and the versions it serves; `versions[0]` is the preferred one. */
export interface ApiGroupInfo {
  name: string;
  versions: readonly string[];
}

/**
 * The named groups the resources span, in order of first appearance, each with its versions
 * sorted by upstream priority (v1 before v1beta1 before v1alpha1). The core group is skipped: it
 * is served under /api.
 */
export function groupsFromResources(resources: readonly ResourceInfo[]): ApiGroupInfo[] {
  const byName = new Map<string, Set<string>>();
  for (const r of resources) {
    if (r.group === '') continue;
    const versions = byName.get(r.group) ?? new Set<string>();
    versions.add(r.version);
    byName.set(r.group, versions);
  }
  return [...byName].map(([name, versions]) => ({ name, versions: [...versions].sort(compareVersionPriority) }));
}

/** `GET /api`: the legacy core versions and the address clients should use. */
export function apiVersions(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupBody(g: ApiGroupInfo): JsonObject {
  const versions = g.versions.map((version) => ({ groupVersion: `${g.name}/${version}`, version }));
  const preferred = versions[0];
  const out: JsonObject = { name: g.name, versions };
  if (preferred) out['preferredVersion'] = { ...preferred };
  return out;
}

/** `GET /apis`: every named group with its versions and preferred version. */
export function apiGroupList(groups: readonly ApiGroupInfo[]): JsonObject {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(groupBody) };
}

/** `GET /apis/<group>`: one group with its versions and preferred version. */
export function apiGroup(group: ApiGroupInfo): JsonObject {
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupBody(group) };
}

/**
 * One discovery entry per resource and per subresource (`namespaces/status`), as upstream lists
 * them: sorted by name, verbs sorted, subresources with an empty singularName and their own
 * group/version when those differ. storageVersionHash is set for stored resources (those with
 * `get`), from the storage version.
 */
export function apiResources(resources: readonly ResourceInfo[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const r of resources) {
    const entry: JsonObject = {
      name: r.resource,
      singularName: r.singularName,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: [...r.verbs].sort(),
    };
    if (r.shortNames && r.shortNames.length > 0) entry['shortNames'] = [...r.shortNames];
    if (r.categories && r.categories.length > 0) entry['categories'] = [...r.categories];
    if (r.verbs.includes('get')) entry['storageVersionHash'] = storageVersionHash(r.group, r.storageVersion ?? r.version, r.kind);
    out.push(entry);
    for (const s of r.subresources ?? []) {
      const sub: JsonObject = { name: `${r.resource}/${s.name}`, singularName: '', namespaced: r.namespaced };
      // Named whenever the subresource has a kind of its own, even in the resource's own group
      // version (extensions/v1beta1 deployments/scale), as upstream's GroupVersionKindProvider.
      if (s.group !== undefined) sub['group'] = s.group;
      if (s.version !== undefined) sub['version'] = s.version;
      sub['kind'] = s.kind;
      sub['verbs'] = [...s.verbs].sort();
      out.push(sub);
    }
  }
  return out.sort((a, b) => ((a['name'] as string) < (b['name'] as string) ? -1 : 1));
}

/**
 * `GET /api/v1` or `GET /apis/<group>/<version>`: the resources served in `groupVersion` (`v1` or
 * `group/version`); resources of other group versions are ignored. The core list carries no
 * apiVersion, as upstream's does not.
 */
export function apiResourceList(groupVersion: string, resources: readonly ResourceInfo[]): JsonObject {
  const { group, version } = parseApiVersion(groupVersion);
  const mine = resources.filter((r) => r.group === group && r.version === version);
  const head: JsonObject = group === '' ? { kind: 'APIResourceList' } : { kind: 'APIResourceList', apiVersion: 'v1' };
  return { ...head, groupVersion, resources: apiResources(mine) };
}

/** Inputs of {@link versionInfo}; all optional. */
export interface VersionInfoOptions {
  build?: BuildInfo;
  /** Runtime version reported as goVersion (default: the Node.js version). */
  goVersion?: string;
  /** `os/arch` (default: this process, with Node's x64 spelled amd64 as Go does). */
  platform?: string;
}

/**
 * `GET /version`, in upstream's version.Info shape: the API level this server implements
 * (server-version.ts), the commit and date of its build, and the runtime in goVersion.
 */
export function versionInfo(options: VersionInfoOptions = {}): JsonObject {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch === 'ia32' ? '386' : process.arch;
  const build = options.build ?? UNKNOWN_BUILD;
  return {
    major: String(API_LEVEL.major),
    minor: String(API_LEVEL.minor),
    gitVersion: serverGitVersion(build),
    gitCommit: build.gitCommit,
    gitTreeState: build.gitTreeState,
    buildDate: build.buildDate,
    goVersion: options.goVersion ?? process.version,
    compiler: 'node',
    platform: options.platform ?? `${process.platform}/${arch}`,
  };
}
