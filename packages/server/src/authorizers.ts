import { alwaysAllow, privilegedGroup, type Authorizer } from '@cluster/apiserver';

const alwaysDeny: Authorizer = {
  async authorize() {
    return { decision: 'deny', reason: '' };
  },
};

/**
 * The authorizer chain of --authorization-mode, in the order given. RBAC is not served yet, so
 * the RBAC mode admits only system:masters (the privileged group upstream also lets through).
 */
export function authorizersFor(modes: readonly string[]): Authorizer[] {
  return modes.map((mode) => {
    switch (mode) {
      case 'AlwaysAllow':
        return alwaysAllow;
      case 'AlwaysDeny':
        return alwaysDeny;
      case 'RBAC':
        return privilegedGroup;
      default:
        throw new Error(`authorization-mode ${JSON.stringify(mode)} is not supported; supported: AlwaysAllow, AlwaysDeny, RBAC`);
    }
  });
}
