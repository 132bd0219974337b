import { alwaysAllow, alwaysDeny, privilegedGroup, UnionAuthorizer, type Authorizer } from '@cluster/apiserver';

/**
 * The authorizer chain of --authorization-mode, in the order given, as one UnionAuthorizer.
 * RBAC is not served yet, so the RBAC mode admits only system:masters (the privileged group
 * upstream also lets through).
 */
export function authorizersFor(modes: readonly string[]): UnionAuthorizer {
  return new UnionAuthorizer(
    modes.map((mode): Authorizer => {
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
    }),
  );
}
