import type { UserInfo } from '../authn/user.js';
import type { RequestInfo } from '../request/request-info.js';

export type Decision = 'allow' | 'deny' | 'no-opinion';

/** Attributes of a request an authorizer judges, after upstream's authorizer.Attributes. */
export interface AuthorizationAttributes {
  user: UserInfo;
  info: RequestInfo;
}

/** One rule as rbac/v1 PolicyRule writes it; also what SelfSubjectRulesReview reports. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** The rules that apply to a user in a namespace ('' = cluster-wide), after upstream's RuleResolver. */
export interface RulesResult {
  rules: PolicyRule[];
  /** True when some rules could not be resolved (e.g. a binding names a missing role) or the authorizer cannot list them. */
  incomplete: boolean;
  evaluationError?: string;
}

/** An authorizer's answer: its decision and why (for audit annotations and 403 messages). */
export interface Verdict {
  decision: Decision;
  reason: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<Verdict>;
  /**
   * The very decision `authorize` gives, without a promise, when this authorizer can make it at
   * once; undefined when it cannot now (its index is not listed yet, or it must ask elsewhere),
   * and then `authorize` is to be asked. Lets the request chain authorize without a microtask turn.
   */
  authorizeNow?(attrs: AuthorizationAttributes): Verdict | undefined;
  /** The rules this authorizer grants `user` in `namespace`; absent when it cannot enumerate them. */
  rulesFor?(user: UserInfo, namespace: string): Promise<RulesResult>;
}

const EVERYTHING: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** --authorization-mode=AlwaysAllow: every request is allowed (development). */
const ALLOW: Verdict = Object.freeze({ decision: 'allow', reason: '' });
const DENY: Verdict = Object.freeze({ decision: 'deny', reason: '' });
const NO_OPINION: Verdict = Object.freeze({ decision: 'no-opinion', reason: '' });

export const alwaysAllow: Authorizer = {
  async authorize() {
    return { decision: 'allow', reason: '' };
  },
  authorizeNow: () => ALLOW,
  async rulesFor() {
    return { rules: EVERYTHING, incomplete: false };
  },
};

/** --authorization-mode=AlwaysDeny: every request is denied. */
export const alwaysDeny: Authorizer = {
  async authorize() {
    return { decision: 'deny', reason: '' };
  },
  authorizeNow: () => DENY,
  async rulesFor() {
    return { rules: [], incomplete: false };
  },
};

/** Members of system:masters are allowed everything, as upstream's privileged group. */
export const privilegedGroup: Authorizer = {
  async authorize({ user }) {
    return user.groups.includes('system:masters')
      ? { decision: 'allow', reason: '' }
      : { decision: 'no-opinion', reason: '' };
  },
  authorizeNow: ({ user }) => (user.groups.includes('system:masters') ? ALLOW : NO_OPINION),
  // Lists nothing, as upstream's privileged-group authorizer is no rule resolver: the
  // cluster-admin binding of system:masters lists the same rules once through RBAC.
  async rulesFor() {
    return { rules: [], incomplete: false };
  },
};

/**
 * The authorizers of --authorization-mode in order, as one: the first allow or deny decides; no
 * opinion from all is a deny with the last reason given (upstream's union authorizer). Rules are
 * the union of every authorizer's; one that cannot list them makes the answer incomplete.
 */
export class UnionAuthorizer implements Authorizer {
  constructor(readonly authorizers: readonly Authorizer[]) {}

  async authorize(attrs: AuthorizationAttributes): Promise<{ decision: Decision; reason: string }> {
    let reason = '';
    for (const a of this.authorizers) {
      const d = await a.authorize(attrs);
      if (d.decision !== 'no-opinion') return d;
      if (d.reason) reason = d.reason;
    }
    return { decision: 'no-opinion', reason };
  }

  /** The same union of every authorizer's `authorizeNow`; undefined as soon as one cannot answer at once. */
  authorizeNow(attrs: AuthorizationAttributes): Verdict | undefined {
    let reason = '';
    for (const a of this.authorizers) {
      const d = a.authorizeNow?.(attrs);
      if (d === undefined) return undefined;
      if (d.decision !== 'no-opinion') return d;
      if (d.reason) reason = d.reason;
    }
    return { decision: 'no-opinion', reason };
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const rules: PolicyRule[] = [];
    let incomplete = false;
    const errors: string[] = [];
    for (const a of this.authorizers) {
      if (!a.rulesFor) {
        incomplete = true;
        continue;
      }
      const r = await a.rulesFor(user, namespace);
      rules.push(...r.rules);
      incomplete ||= r.incomplete;
      if (r.evaluationError) errors.push(r.evaluationError);
    }
    return errors.length ? { rules, incomplete, evaluationError: errors.join(', ') } : { rules, incomplete };
  }
}

/** What an authorization check inside the server asks about: a resource, or a non-resource path. */
export interface CheckedAttributes {
  verb: string;
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** Set for a non-resource check (then only `verb` counts). */
  path?: string;
}

/**
 * The RequestInfo an authorizer sees for a check that is not the request itself: impersonation
 * (`impersonate` on users, groups, ...) and the access reviews.
 */
export function checkedRequestInfo(a: CheckedAttributes): RequestInfo {
  return {
    isResourceRequest: a.path === undefined,
    path: a.path ?? '',
    verb: a.verb,
    apiPrefix: a.path === undefined ? (a.apiGroup ? 'apis' : 'api') : '',
    apiGroup: a.apiGroup ?? '',
    apiVersion: a.apiVersion ?? '',
    namespace: a.namespace ?? '',
    resource: a.resource ?? '',
    subresource: a.subresource ?? '',
    name: a.name ?? '',
    parts: [],
  };
}
