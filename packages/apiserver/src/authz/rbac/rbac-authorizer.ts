import type { UserInfo } from '../../authn/user.js';
import type { RegistrySet } from '../../registry/registry-set.js';
import type { AuthorizationAttributes, Authorizer, PolicyRule, RulesResult, Verdict } from '../authorizer.js';
import { runInformer } from './informer.js';
import { ruleAllows } from './matching.js';
import { RbacIndex, type ResolvedRules } from './rbac-index.js';
import { RBAC_RESOURCES, rbacGroup, type BindingObject, type RoleObject, type RoleRef } from './types.js';

/** Resolved rule sets kept at most; the cache is dropped whole when it grows past this. */
const MAX_CACHED = 10_000;
/** Decisions kept per user object at most; its table is emptied when full. */
const MAX_DECISIONS_PER_USER = 256;

/** Whether some rule of these has resourceNames (then a request's name can change the decision). */
const withNames = new WeakMap<ResolvedRules, boolean>();
function namesMatter(resolved: ResolvedRules): boolean {
  let yes = withNames.get(resolved);
  if (yes === undefined) {
    yes = resolved.sources.some((src) => src.rules.some((r) => (r.resourceNames?.length ?? 0) > 0));
    withNames.set(resolved, yes);
  }
  return yes;
}

export interface RbacAuthorizerOptions {
  apiDomain: string;
  log?: (msg: string, err?: unknown) => void;
}

/**
 * --authorization-mode=RBAC: allows what some binding of the user (by name, group or service
 * account) grants; never denies, so the union answers 403 when nothing allows. Decisions come from
 * an in-memory index of the four RBAC kinds kept current by a watch (`start`), with each user's
 * resolved rules cached until the next RBAC change.
 */
export class RbacAuthorizer implements Authorizer {
  readonly index = new RbacIndex();
  private readonly cache = new Map<string, ResolvedRules>();
  /** The same, per user object (users are never mutated after authentication). */
  private byUser = new WeakMap<UserInfo, Map<string, ResolvedRules>>();
  /** Decisions of resource requests per user object, dropped with the resolved rules (see decide). */
  private decisions = new WeakMap<UserInfo, Map<string, Verdict>>();
  private cachedGeneration = -1;
  private synced: Promise<void> | undefined;
  /** Set once every kind has been listed (then decisions need no wait). */
  private listed = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly registries: () => RegistrySet,
    private readonly opts: RbacAuthorizerOptions,
  ) {}

  /**
   * Starts the list-then-watch of the four kinds (call once, after the API server exists).
   * Returns when every kind has been listed once.
   */
  start(): Promise<void> {
    if (!this.synced) {
      const group = rbacGroup(this.opts.apiDomain);
      const all = RBAC_RESOURCES.map((resource) => {
        const registry = () => {
          const r = this.registries().byResource(group, resource);
          if (!r) throw new Error(`${resource}.${group} is not served`);
          return r;
        };
        return runInformer(
          registry,
          {
            replace: (objs) => this.index.replaceAll(resource, objs as Array<RoleObject | BindingObject>),
            upsert: (obj) => this.index.upsert(resource, obj as RoleObject | BindingObject),
            remove: (obj) => this.index.remove(resource, obj as RoleObject | BindingObject),
          },
          this.abort.signal,
          { log: this.opts.log },
        ).synced;
      });
      this.synced = Promise.all(all).then(() => {
        this.listed = true;
      });
    }
    return this.synced;
  }

  /** Ends the watches. */
  stop(): void {
    this.abort.abort();
  }

  async authorize(attrs: AuthorizationAttributes): Promise<Verdict> {
    if (this.synced && !this.listed) await this.synced;
    return this.decide(attrs);
  }

  /** `authorize`'s decision at once, once every kind has been listed (undefined before). */
  authorizeNow(attrs: AuthorizationAttributes): Verdict | undefined {
    return this.synced && !this.listed ? undefined : this.decide(attrs);
  }

  /**
   * The decision from the index as it stands: cluster role bindings first, then the namespace's.
   * A resource request's decision is kept per user object (authenticators that keep one per
   * connection) and the attributes the user's rules can tell apart, until the next RBAC change
   * (the index's generation, as the resolved rules are): the name counts only when one of the
   * user's rules in these scopes has resourceNames.
   */
  private decide(attrs: AuthorizationAttributes): Verdict {
    const { user, info } = attrs;
    if (!info.isResourceRequest) return this.evaluate(attrs);
    const cluster = this.resolved(user, '');
    const inNamespace = info.namespace !== '' ? this.resolved(user, info.namespace) : undefined;
    const named = namesMatter(cluster) || (inNamespace !== undefined && namesMatter(inNamespace));
    const key = `${info.verb}\u0000${info.apiGroup}\u0000${info.resource}\u0000${info.subresource}\u0000${info.namespace}${named ? `\u0000${info.name}` : ''}`;
    let perUser = this.decisions.get(user);
    const hit = perUser?.get(key);
    if (hit) return hit;
    const d = Object.freeze(this.evaluate(attrs));
    if (!perUser) this.decisions.set(user, (perUser = new Map()));
    if (perUser.size >= MAX_DECISIONS_PER_USER) perUser.clear();
    perUser.set(key, d);
    return d;
  }

  /** The decision, worked out from the rules. */
  private evaluate({ user, info }: AuthorizationAttributes): Verdict {
    let errors: string[] | undefined;
    const namespaced = info.isResourceRequest && info.namespace !== '';
    for (let scope = 0; scope < (namespaced ? 2 : 1); scope++) {
      const resolved = this.resolved(user, scope === 0 ? '' : info.namespace);
      for (const src of resolved.sources) {
        for (const r of src.rules) {
          if (ruleAllows(info, r)) return { decision: 'allow', reason: `RBAC: allowed by ${src.binding} to ${describeUser(user)}` };
        }
      }
      if (resolved.errors.length) (errors ??= []).push(...resolved.errors);
    }
    return { decision: 'no-opinion', reason: errors ? `RBAC: ${aggregate(errors)}` : '' };
  }

  /** Every rule granted to `user` in `namespace` (cluster role bindings included). */
  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    if (this.synced) await this.synced;
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const resolved of namespace ? [this.resolved(user, ''), this.resolved(user, namespace)] : [this.resolved(user, '')]) {
      for (const s of resolved.sources) rules.push(...s.rules);
      errors.push(...resolved.errors);
    }
    return errors.length ? { rules, incomplete: true, evaluationError: aggregate(errors) } : { rules, incomplete: false };
  }

  /**
   * The rules a binding's roleRef grants, from the index or, for a role created a moment ago that
   * the watch has not delivered yet, from storage.
   * @throws the registry's 404 NotFound when the role does not exist.
   */
  async roleRefRules(ref: RoleRef, bindingNamespace: string): Promise<PolicyRule[]> {
    try {
      return this.index.roleRefRules(ref, bindingNamespace);
    } catch (e) {
      const resource = ref.kind === 'Role' ? 'roles' : ref.kind === 'ClusterRole' ? 'clusterroles' : undefined;
      const registry = resource && this.registries().byResource(rbacGroup(this.opts.apiDomain), resource);
      if (!registry) throw e;
      const role = (await registry.get(resource === 'roles' ? bindingNamespace : '', ref.name)) as RoleObject;
      return role.rules ?? [];
    }
  }

  /** Resolved rules of one scope ('' = cluster role bindings; else that namespace's role bindings). */
  private resolved(user: UserInfo, namespace: string): ResolvedRules {
    if (this.cachedGeneration !== this.index.generation || this.cache.size > MAX_CACHED) {
      this.cache.clear();
      this.byUser = new WeakMap();
      // Decisions were made from the rules dropped here: none may outlive them.
      this.decisions = new WeakMap();
      this.cachedGeneration = this.index.generation;
    }
    // Fast path: authenticators that reuse one user object per connection (x509) skip even the key.
    let perUser = this.byUser.get(user);
    const hit = perUser?.get(namespace);
    if (hit) return hit;
    const key = `${namespace}\u0000${user.username}\u0000${user.groups.join('\u0001')}`;
    let r = this.cache.get(key);
    if (!r) {
      r = namespace ? this.index.namespaceRules(user, namespace) : this.index.clusterRules(user);
      this.cache.set(key, r);
    }
    if (!perUser) this.byUser.set(user, (perUser = new Map()));
    if (perUser.size < 64) perUser.set(namespace, r);
    return r;
  }
}

function describeUser(user: UserInfo): string {
  return `User "${user.username}"`;
}

/** Upstream's utilerrors aggregate text: one error as is, several as `[a, b]`. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}
