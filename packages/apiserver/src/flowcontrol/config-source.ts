import { flowControlGroup, type FlowSchema, type KubeObject, type PriorityLevelConfiguration } from '@cluster/apimachinery';
import { runInformer } from '../authz/rbac/informer.js';
import type { RegistrySet } from '../registry/registry-set.js';
import type { FlowControl } from './flow-control.js';

/**
 * Keeps a replica's FlowControl on the stored configuration: a list-then-watch of flow schemas and
 * priority levels (v1beta2), each change digested at once, so an object written through any replica
 * applies on every replica. Until both lists arrive, the bootstrap configuration applies.
 */
export class FlowControlConfigSource {
  private readonly schemas = new Map<string, FlowSchema>();
  private readonly levels = new Map<string, PriorityLevelConfiguration>();
  private readonly abort = new AbortController();
  private listed = 0;
  private synced?: Promise<void>;

  constructor(
    private readonly registries: () => RegistrySet,
    private readonly control: FlowControl,
    private readonly opts: { apiDomain: string; log?: (msg: string, err?: unknown) => void },
  ) {}

  /** Starts both watches (once); resolves when both kinds were listed. */
  start(): Promise<void> {
    if (this.synced) return this.synced;
    const group = flowControlGroup(this.opts.apiDomain);
    const kinds: Array<[string, Map<string, KubeObject>]> = [
      ['flowschemas', this.schemas],
      ['prioritylevelconfigurations', this.levels],
    ];
    this.synced = Promise.all(
      kinds.map(([resource, map]) => {
        let first = true;
        const registry = () => {
          const r = this.registries().lookup(group, 'v1beta2', resource);
          if (!r) throw new Error(`${resource}.${group} is not served`);
          return r;
        };
        return runInformer(
          registry,
          {
            replace: (objs) => {
              map.clear();
              for (const o of objs) map.set(o.metadata.name ?? '', o);
              if (first) {
                first = false;
                this.listed++;
              }
              this.apply();
            },
            upsert: (obj) => {
              map.set(obj.metadata.name ?? '', obj);
              this.apply();
            },
            remove: (obj) => {
              map.delete(obj.metadata.name ?? '');
              this.apply();
            },
          },
          this.abort.signal,
          { log: this.opts.log },
        ).synced;
      }),
    ).then(() => undefined);
    return this.synced;
  }

  stop(): void {
    this.abort.abort();
  }

  private apply(): void {
    // The bootstrap configuration stays until both kinds are known (an empty first list of one
    // kind must not leave schemas pointing at levels not yet seen).
    if (this.listed < 2) return;
    this.control.setConfig([...this.schemas.values()], [...this.levels.values()]);
  }
}
