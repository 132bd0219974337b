import type { ApiClient } from '../client/api-client.js';
import type { ServedResource } from './monitors.js';

interface ApiResource {
  name: string;
  namespaced?: boolean;
  verbs?: string[];
}
interface GroupList {
  groups?: Array<{ name: string; preferredVersion?: { groupVersion?: string } }>;
}

const QUOTABLE_VERBS = ['create', 'list', 'watch', 'delete'];
const MIN_REFRESH_MS = 1_000;

/**
 * Which namespaced resources can be counted (upstream's GetQuotableResources: served with create,
 * list, watch and delete), at their preferred version, from discovery. Looked up again at most
 * every `refreshMs`, so custom resources defined later are found.
 */
export class QuotableResources {
  private known = new Map<string, ServedResource>();
  private loadedAt = -Infinity;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly refreshMs = 30_000,
  ) {}

  /** The resource, when served and quotable; refreshes discovery first when it is stale. */
  async lookup(group: string, resource: string): Promise<ServedResource | undefined> {
    const key = `${group}/${resource}`;
    const age = performance.now() - this.loadedAt;
    // A resource not known is looked for again, but discovery is read at most once a second.
    if ((!this.known.has(key) && age > MIN_REFRESH_MS) || age > this.refreshMs) await this.refresh();
    return this.known.get(key);
  }

  private refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<void> {
    const found = new Map<string, ServedResource>();
    const add = (group: string, base: string, resources: ApiResource[]) => {
      for (const r of resources) {
        if (r.name.includes('/') || !r.namespaced || !QUOTABLE_VERBS.every((v) => r.verbs?.includes(v))) continue;
        found.set(`${group}/${r.name}`, { group, resource: r.name, path: `${base}/${r.name}` });
      }
    };
    const core = (await this.client.call('GET', '/api/v1')) as { resources?: ApiResource[] };
    add('', '/api/v1', core.resources ?? []);
    const groups = (await this.client.call('GET', '/apis')) as GroupList;
    await Promise.all(
      (groups.groups ?? []).map(async (g) => {
        const gv = g.preferredVersion?.groupVersion;
        if (!gv) return;
        try {
          const list = (await this.client.call('GET', `/apis/${gv}`)) as { resources?: ApiResource[] };
          add(g.name, `/apis/${gv}`, list.resources ?? []);
        } catch {
          // A group that fails discovery is left out until the next refresh, as upstream's partial discovery.
        }
      }),
    );
    this.known = found;
    this.loadedAt = performance.now();
  }
}
