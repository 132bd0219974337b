import { alwaysAllow, alwaysDeny, privilegedGroup, UnionAuthorizer, type Authorizer, type RbacAuthorizer } from '@cluster/apiserver';

/**
 * The authorizer chain of --authorization-mode, in the order given, as one UnionAuthorizer.
 * RBAC is the privileged group (system:masters, as upstream lets it through first) then `rbac`.
 */
export function authorizersFor(modes: readonly string[], rbac?: RbacAuthorizer): UnionAuthorizer {
  return new UnionAuthorizer(
    modes.flatMap((mode): Authorizer[] => {
      switch (mode) {
        case 'AlwaysAllow':
          return [alwaysAllow];
        case 'AlwaysDeny':
          return [alwaysDeny];
        case 'RBAC':
          return rbac ? [privilegedGroup, rbac] : [privilegedGroup];
        default:
          throw new Error(`authorization-mode ${JSON.stringify(mode)} is not supported; supported: AlwaysAllow, AlwaysDeny, RBAC`);
      }
    }),
  );
}
