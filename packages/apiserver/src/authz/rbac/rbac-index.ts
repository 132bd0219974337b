import type { UserInfo } from '../../authn/user.js';
import { serviceAccountUsername, type BindingObject, type PolicyRule, type RbacResource, type RoleObject, type RoleRef, type Subject } from './types.js';

/** Where a resolved rule came from, for allow reasons (upstream's describers). */
export interface RuleSource {
  binding: string;
  rules: readonly PolicyRule[];
}

/** Rules resolved for one user in one scope, with the errors met resolving them. */
export interface ResolvedRules {
  sources: RuleSource[];
  errors: string[];
}

interface Indexed {
  binding: BindingObject;
  describe: string;
}

/**
 * The four RBAC kinds in memory, with bindings indexed by subject (`User:<name>`, `Group:<name>`;
 * a ServiceAccount subject is indexed as the User it authenticates as). Mutated only by `upsert`,
 * `remove` and `replaceAll`; each bumps `generation`, which callers use to drop caches.
 */
export class RbacIndex {
  private readonly objects: Record<RbacResource, Map<string, RoleObject | BindingObject>> = {
    roles: new Map(),
    rolebindings: new Map(),
    clusterroles: new Map(),
    clusterrolebindings: new Map(),
  };
  /** Subject key -> cluster role bindings naming it; rebuilt lazily after a change. */
  private clusterSubjects: Map<string, Indexed[]> | undefined;
  /** Namespace -> subject key -> role bindings naming it. */
  private namespaceSubjects: Map<string, Map<string, Indexed[]>> | undefined;
  generation = 0;

  constructor(private readonly listeners: Array<() => void> = []) {}

  /** Calls `fn` after every change (the aggregator, the authorizer's cache). */
  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  upsert(resource: RbacResource, obj: RoleObject | BindingObject): void {
    this.objects[resource].set(keyOf(obj), obj);
    this.changed(resource);
  }

  remove(resource: RbacResource, obj: RoleObject | BindingObject): void {
    this.objects[resource].delete(keyOf(obj));
    this.changed(resource);
  }

  /** Replaces every object of a resource (after a relist). */
  replaceAll(resource: RbacResource, objs: readonly (RoleObject | BindingObject)[]): void {
    this.objects[resource] = new Map(objs.map((o) => [keyOf(o), o]));
    this.changed(resource);
  }

  clusterRoles(): RoleObject[] {
    return [...this.objects.clusterroles.values()] as RoleObject[];
  }

  clusterRole(name: string): RoleObject | undefined {
    return this.objects.clusterroles.get(name) as RoleObject | undefined;
  }

  role(namespace: string, name: string): RoleObject | undefined {
    return this.objects.roles.get(`${namespace}/${name}`) as RoleObject | undefined;
  }

  /**
   * The rules a role reference grants (upstream's GetRoleReferenceRules). Throws an Error with
   * upstream's lister message when the role is missing.
   */
  roleRefRules(ref: RoleRef, bindingNamespace: string): PolicyRule[] {
    if (ref.kind === 'Role') {
      const r = this.role(bindingNamespace, ref.name);
      if (!r) throw new Error(`role.${ref.apiGroup} "${ref.name}" not found`);
      return r.rules ?? [];
    }
    if (ref.kind === 'ClusterRole') {
      const r = this.clusterRole(ref.name);
      if (!r) throw new Error(`clusterrole.${ref.apiGroup} "${ref.name}" not found`);
      return r.rules ?? [];
    }
    throw new Error(`unsupported role reference kind: "${ref.kind}"`);
  }

  /** Rules granted to `user` by cluster role bindings (they apply in every namespace). */
  clusterRules(user: UserInfo): ResolvedRules {
    this.clusterSubjects ??= indexSubjects([...this.objects.clusterrolebindings.values()] as BindingObject[], '');
    return this.resolve(this.clusterSubjects, user, '');
  }

  /** Rules granted to `user` by role bindings in `namespace` (none for ''). */
  namespaceRules(user: UserInfo, namespace: string): ResolvedRules {
    if (!namespace) return { sources: [], errors: [] };
    this.namespaceSubjects ??= indexRoleBindings([...this.objects.rolebindings.values()] as BindingObject[]);
    const subjects = this.namespaceSubjects.get(namespace);
    return subjects ? this.resolve(subjects, user, namespace) : { sources: [], errors: [] };
  }

  private resolve(subjects: Map<string, Indexed[]>, user: UserInfo, namespace: string): ResolvedRules {
    const seen = new Set<Indexed>();
    const out: ResolvedRules = { sources: [], errors: [] };
    const keys = [`User:${user.username}`, ...user.groups.map((g) => `Group:${g}`)];
    for (const k of keys) {
      for (const entry of subjects.get(k) ?? []) {
        if (seen.has(entry)) continue;
        seen.add(entry);
        try {
          out.sources.push({ binding: entry.describe, rules: this.roleRefRules(entry.binding.roleRef, namespace) });
        } catch (e) {
          out.errors.push((e as Error).message);
        }
      }
    }
    return out;
  }

  private changed(resource: RbacResource): void {
    this.generation++;
    if (resource === 'clusterrolebindings') this.clusterSubjects = undefined;
    if (resource === 'rolebindings') this.namespaceSubjects = undefined;
    for (const l of this.listeners) l();
  }
}

function keyOf(obj: { metadata: { namespace?: string; name?: string } }): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : (obj.metadata.name ?? '');
}

/** Index key of a subject, or undefined when it can never match (unknown kind, SA without namespace). */
export function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return `User:${s.name}`;
    case 'Group':
      return `Group:${s.name}`;
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns ? `User:${serviceAccountUsername(ns, s.name)}` : undefined;
    }
    default:
      return undefined;
  }
}

function indexSubjects(bindings: readonly BindingObject[], namespace: string): Map<string, Indexed[]> {
  const m = new Map<string, Indexed[]>();
  for (const b of bindings) {
    const kind = namespace ? 'RoleBinding' : 'ClusterRoleBinding';
    const name = namespace ? `${b.metadata.name}/${namespace}` : b.metadata.name;
    const entry: Indexed = { binding: b, describe: `${kind} "${name}" of ${b.roleRef?.kind} "${b.roleRef?.name}"` };
    for (const s of b.subjects ?? []) {
      const k = subjectKey(s, namespace);
      if (!k) continue;
      const list = m.get(k) ?? [];
      if (!list.includes(entry)) list.push(entry);
      m.set(k, list);
    }
  }
  return m;
}

function indexRoleBindings(bindings: readonly BindingObject[]): Map<string, Map<string, Indexed[]>> {
  const byNs = new Map<string, BindingObject[]>();
  for (const b of bindings) {
    const ns = b.metadata.namespace ?? '';
    const list = byNs.get(ns);
    if (list) list.push(b);
    else byNs.set(ns, [b]);
  }
  return new Map([...byNs].map(([ns, bs]) => [ns, indexSubjects(bs, ns)]));
}
