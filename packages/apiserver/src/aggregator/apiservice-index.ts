import { runInformer } from '../authz/rbac/informer.js';
import type { RegistrySet } from '../registry/registry-set.js';
import { apiRegistrationGroup } from '../resources/apiregistration/register.js';
import { isAvailable, type ApiService } from '../resources/apiregistration/types.js';

/**
 * The APIServices this replica knows, kept current by a list-then-watch (so one registered or
 * changed through any replica routes on every replica). The proxy asks it which group versions
 * belong to an extension; the map is replaced, never changed in place.
 */
export class ApiServiceIndex {
  private all = new Map<string, ApiService>();
  /** `group/version` -> APIService with a service (the only ones the proxy routes). */
  private external = new Map<string, ApiService>();
  private readonly listeners = new Set<() => void>();
  private readonly abort = new AbortController();
  private synced?: Promise<void>;

  constructor(
    private readonly registries: () => RegistrySet,
    private readonly apiDomain: string,
    private readonly log: (msg: string, err?: unknown) => void = () => {},
  ) {}

  /** Starts the watch (once); resolves after the first list. */
  start(): Promise<void> {
    this.synced ??= runInformer(
      () => {
        const r = this.registries().byResource(apiRegistrationGroup(this.apiDomain), 'apiservices');
        if (!r) throw new Error('apiservices are not served');
        return r;
      },
      {
        replace: (objs) => {
          this.all = new Map(objs.map((o) => [o.metadata.name ?? '', o as ApiService]));
          this.rebuild();
        },
        upsert: (obj) => {
          this.all.set(obj.metadata.name ?? '', obj as ApiService);
          this.rebuild();
        },
        remove: (obj) => {
          this.all.delete(obj.metadata.name ?? '');
          this.rebuild();
        },
      },
      this.abort.signal,
      { log: this.log },
    ).synced;
    return this.synced;
  }

  stop(): void {
    this.abort.abort();
  }

  /** The APIService with a service that serves `group/version`, if any (this server's own group never has one). */
  lookup(group: string, version: string): ApiService | undefined {
    return this.external.get(`${group}/${version}`);
  }

  /** Every APIService with a service, available or not. */
  externalServices(): ApiService[] {
    return [...this.external.values()];
  }

  /** Calls `listener` after every change; returns its removal. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private rebuild(): void {
    const own = apiRegistrationGroup(this.apiDomain);
    const external = new Map<string, ApiService>();
    for (const svc of this.all.values()) {
      const spec = svc.spec;
      // The aggregator's own group is always served here (as upstream's): registering it to an
      // extension cannot take the APIService API away.
      if (!spec?.service || spec.group === own) continue;
      external.set(`${spec.group ?? ''}/${spec.version ?? ''}`, svc);
    }
    this.external = external;
    for (const l of this.listeners) l();
  }
}

export { isAvailable };
