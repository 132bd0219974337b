/** One served group version and its resources, as the runtime config judges them. */
export interface ServedGroupVersion {
  /** '' for the core group. */
  group: string;
  version: string;
  resources: readonly string[];
  /** Versions removed upstream (SPEC 9.4) are served only when asked for. */
  removed?: boolean;
  /** On by default whatever the stability (early betas, e.g. flowcontrol v1beta2 and its deprecated v1beta1). */
  servedByDefault?: boolean;
  /**
   * Resources on by default in a version that is off by default (storage/v1beta1 CSIStorageCapacity,
   * still served upstream, beside that version's removed kinds); a key naming the version decides for them too.
   */
  defaultResources?: readonly string[];
}

export type StabilityLevel = 'alpha' | 'beta' | 'ga';

/** SPEC 9.2: `v1alpha1` is alpha, `v1beta1` beta, `vN` stable. */
export function stabilityOf(version: string): StabilityLevel {
  if (/^v\d+alpha\d*$/.test(version)) return 'alpha';
  if (/^v\d+beta\d*$/.test(version)) return 'beta';
  return 'ga';
}

export interface RuntimeConfig {
  /** Whether `<group>/<version>/<resource>` is served. */
  serves(group: string, version: string, resource: string): boolean;
}

const keyOf = (gv: ServedGroupVersion) => (gv.group === '' ? `api/${gv.version}` : `${gv.group}/${gv.version}`);

function parseBool(key: string, raw: string): boolean {
  if (raw === '' || raw === 'true' || raw === '1' || raw === 't' || raw === 'T' || raw === 'TRUE' || raw === 'True') return true;
  if (raw === 'false' || raw === '0' || raw === 'f' || raw === 'F' || raw === 'FALSE' || raw === 'False') return false;
  throw new Error(`invalid value of ${key}: ${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`);
}

/**
 * `--runtime-config` (SPEC 9.1, upstream's resource config): every version starts at its
 * default (stable on, beta and alpha off, removed versions off; SPEC 9.2's early betas are all
 * removed versions here), then `api/all`, then `api/ga` / `api/beta` / `api/alpha`, then
 * `<group>/<version>` keys (`api/v1` for the core group), then `<group>/<version>/<resource>`
 * keys; a missing value means true. Pure.
 * @throws Error naming every unknown key or bad value, for a one-line start-up message.
 */
export function parseRuntimeConfig(config: Readonly<Record<string, string>>, served: readonly ServedGroupVersion[]): RuntimeConfig {
  const errors: string[] = [];
  const bools = new Map<string, boolean>();
  for (const [key, raw] of Object.entries(config)) {
    try {
      bools.set(key, parseBool(key, raw));
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  const byKey = new Map(served.map((gv) => [keyOf(gv), gv]));
  const versionOn = new Map<string, boolean>();
  for (const gv of served) versionOn.set(keyOf(gv), gv.servedByDefault === true || (!gv.removed && stabilityOf(gv.version) === 'ga'));
  // Versions some key set (then their default resources follow the version).
  const versionSet = new Set<string>();
  const setLevel = (level: StabilityLevel | 'all', on: boolean) => {
    for (const gv of served) {
      if (level !== 'all' && stabilityOf(gv.version) !== level) continue;
      versionOn.set(keyOf(gv), on);
      versionSet.add(keyOf(gv));
    }
  };
  if (bools.has('api/all')) setLevel('all', bools.get('api/all')!);
  for (const level of ['ga', 'beta', 'alpha'] as const) if (bools.has(`api/${level}`)) setLevel(level, bools.get(`api/${level}`)!);
  const resourceOn = new Map<string, boolean>();
  const unknown: string[] = [];
  for (const [key, on] of bools) {
    if (/^api\/(all|ga|beta|alpha)$/.test(key)) continue;
    if (byKey.has(key)) {
      versionOn.set(key, on);
      versionSet.add(key);
      continue;
    }
    const slash = key.lastIndexOf('/');
    const gv = byKey.get(key.slice(0, slash));
    if (slash > 0 && gv && gv.resources.includes(key.slice(slash + 1))) {
      resourceOn.set(key, on);
      continue;
    }
    unknown.push(key);
  }
  if (unknown.length > 0) errors.push(`unknown api groups or resources: ${unknown.sort().join(', ')}`);
  if (errors.length > 0) throw new Error(`invalid --runtime-config: ${errors.join('; ')}`);
  return {
    serves(group, version, resource) {
      const key = group === '' ? `api/${version}` : `${group}/${version}`;
      const explicit = resourceOn.get(`${key}/${resource}`);
      if (explicit !== undefined) return explicit;
      if (!versionSet.has(key) && byKey.get(key)?.defaultResources?.includes(resource)) return true;
      return versionOn.get(key) ?? false;
    },
  };
}

/** The served group versions of a set of resources (removed versions are those marked deprecated). */
export function servedGroupVersions(
  infos: readonly { group: string; version: string; resource: string; deprecated?: unknown; servedByDefault?: boolean }[],
): ServedGroupVersion[] {
  const out = new Map<string, { group: string; version: string; resources: string[]; removed?: boolean; servedByDefault?: boolean; defaultResources?: string[] }>();
  const byDefault = new Map<string, string[]>();
  for (const i of infos) {
    const key = `${i.group}/${i.version}`;
    let gv = out.get(key);
    if (!gv) {
      gv = { group: i.group, version: i.version, resources: [], ...(i.deprecated ? { removed: true } : {}), ...(i.servedByDefault ? { servedByDefault: true } : {}) };
      out.set(key, gv);
    }
    gv.resources.push(i.resource);
    if (i.servedByDefault) byDefault.set(key, [...(byDefault.get(key) ?? []), i.resource]);
  }
  // A version is on by default when all its resources are; else those that are stay on alone.
  for (const [key, gv] of out) {
    const on = byDefault.get(key) ?? [];
    if (on.length === gv.resources.length) gv.servedByDefault = on.length > 0 ? true : undefined;
    else {
      delete gv.servedByDefault;
      if (on.length) gv.defaultResources = on;
    }
    if (gv.servedByDefault === undefined) delete gv.servedByDefault;
  }
  return [...out.values()];
}
