import type { UserInfo } from '../handlers/scope.js';
import type { RequestInfo } from '../request/request-info.js';

export type Decision = 'allow' | 'deny' | 'no-opinion';

/** Attributes of a request an authorizer judges, after upstream's authorizer.Attributes. */
export interface AuthorizationAttributes {
  user: UserInfo;
  info: RequestInfo;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<{ decision: Decision; reason: string }>;
}

/** --authorization-mode=AlwaysAllow: every request is allowed (development). */
export const alwaysAllow: Authorizer = {
  async authorize() {
    return { decision: 'allow', reason: '' };
  },
};

/** Members of system:masters are allowed everything, as upstream's privileged group. */
export const privilegedGroup: Authorizer = {
  async authorize({ user }) {
    return user.groups.includes('system:masters')
      ? { decision: 'allow', reason: '' }
      : { decision: 'no-opinion', reason: '' };
  },
};
