import { labelSelectorFromLabelSelectorObject, type KubeObject, type LabelSelector } from '@cluster/apimachinery';
import { runInformer } from '../authz/rbac/informer.js';
import type { RegistrySet } from '../registry/registry-set.js';
import { admissionRegistrationGroup } from '../resources/admissionregistration/register.js';
import type { Webhook, WebhookConfiguration } from '../resources/admissionregistration/types.js';
import { defaultWebhook } from '../resources/admissionregistration/validation.js';

/** One webhook of a stored configuration, with its selectors compiled once. */
export interface WebhookEntry {
  /** The configuration's name (webhooks run in the order of their configurations' names). */
  configuration: string;
  webhook: Webhook;
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
}

export interface WebhookSourceOptions {
  apiDomain: string;
  log?: (msg: string, err?: unknown) => void;
}

const KINDS = [
  ['mutatingwebhookconfigurations', true],
  ['validatingwebhookconfigurations', false],
] as const;

/**
 * The webhook configurations this replica knows, kept current by a list-then-watch of both kinds
 * (so a configuration written through any replica applies on every replica). The arrays are
 * replaced, never changed in place: a request reads one consistent snapshot, and with no
 * configurations the admission plugins cost one length check.
 */
export class WebhookSource {
  mutating: readonly WebhookEntry[] = [];
  validating: readonly WebhookEntry[] = [];
  private readonly configs = { mutating: new Map<string, WebhookConfiguration>(), validating: new Map<string, WebhookConfiguration>() };
  private synced?: Promise<void>;
  private readonly abort = new AbortController();

  constructor(
    private readonly registries: () => RegistrySet,
    private readonly opts: WebhookSourceOptions,
  ) {}

  /** Starts the watches (call once, after the API server exists); resolves once both kinds were listed. */
  start(): Promise<void> {
    if (!this.synced) {
      const group = admissionRegistrationGroup(this.opts.apiDomain);
      this.synced = Promise.all(
        KINDS.map(([resource, mutating]) => {
          const map = mutating ? this.configs.mutating : this.configs.validating;
          const registry = () => {
            const r = this.registries().byResource(group, resource);
            if (!r) throw new Error(`${resource}.${group} is not served`);
            return r;
          };
          const changed = () => this.rebuild(mutating);
          return runInformer(
            registry,
            {
              replace: (objs) => {
                map.clear();
                for (const o of objs) map.set(o.metadata.name ?? '', o as WebhookConfiguration);
                changed();
              },
              upsert: (obj) => {
                map.set(obj.metadata.name ?? '', obj as WebhookConfiguration);
                changed();
              },
              remove: (obj) => {
                map.delete(obj.metadata.name ?? '');
                changed();
              },
            },
            this.abort.signal,
            { log: this.opts.log },
          ).synced;
        }),
      ).then(() => undefined);
    }
    return this.synced;
  }

  /** Waits for the first lists when the watches were started; a source never started stays empty. */
  async ready(): Promise<void> {
    if (this.synced) await this.synced;
  }

  stop(): void {
    this.abort.abort();
  }

  /** Replaces the entries from configurations (also the way tests feed a source without a store). */
  set(mutating: boolean, configurations: readonly KubeObject[]): void {
    const map = mutating ? this.configs.mutating : this.configs.validating;
    map.clear();
    for (const c of configurations) map.set(c.metadata.name ?? '', c as WebhookConfiguration);
    this.rebuild(mutating);
  }

  private rebuild(mutating: boolean): void {
    const map = mutating ? this.configs.mutating : this.configs.validating;
    const entries: WebhookEntry[] = [];
    for (const name of [...map.keys()].sort()) {
      for (const stored of map.get(name)!.webhooks ?? []) {
        const webhook = structuredClone(stored);
        defaultWebhook(webhook, mutating);
        const entry = compile(name, webhook);
        if (entry) entries.push(entry);
        else this.opts.log?.(`webhook ${webhook.name ?? ''} of ${name} has an unusable selector; it is skipped`);
      }
    }
    if (mutating) this.mutating = entries;
    else this.validating = entries;
  }
}

function compile(configuration: string, webhook: Webhook): WebhookEntry | undefined {
  try {
    return {
      configuration,
      webhook,
      namespaceSelector: labelSelectorFromLabelSelectorObject(webhook.namespaceSelector ?? {}),
      objectSelector: labelSelectorFromLabelSelectorObject(webhook.objectSelector ?? {}),
    };
  } catch {
    return undefined;
  }
}
