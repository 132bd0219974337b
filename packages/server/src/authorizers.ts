import type { ServerOptions } from './flag-definitions.js';
import type { Logger } from 'pino';
import { alwaysAllow, alwaysDeny, NodeAuthorizer, privilegedGroup, UnionAuthorizer, type Authorizer, type RbacAuthorizer, type RegistrySet } from '@cluster/apiserver';

/**
 * The authorizer chain of --authorization-mode, in the order given, as one UnionAuthorizer, behind
 * the privileged group (system:masters), which upstream puts first whatever the modes (so the
 * admin is not denied under `--authorization-mode=Node` alone). Node is `node` (node agents'
 * requests judged by what their node needs).
 */
export function authorizersFor(modes: readonly string[], rbac?: RbacAuthorizer, node?: NodeAuthorizer): UnionAuthorizer {
  return new UnionAuthorizer([
    privilegedGroup,
    ...modes.flatMap((mode): Authorizer[] => {
      switch (mode) {
        case 'AlwaysAllow':
          return [alwaysAllow];
        case 'AlwaysDeny':
          return [alwaysDeny];
        case 'RBAC':
          return rbac ? [rbac] : [];
        case 'Node':
          if (!node) throw new Error('authorization-mode "Node" needs the node authorizer');
          return [node];
        default:
          throw new Error(`authorization-mode ${JSON.stringify(mode)} is not supported; supported: AlwaysAllow, AlwaysDeny, Node, RBAC`);
      }
    }),
  ]);
}

/**
 * The authorizer of --authorization-mode for a replica, with the Node authorizer (and its watch of
 * pods, to be started) only when the mode is named; logs the AlwaysAllow warning once per replica
 * (`logWarning`: the process that runs the singletons).
 */
export function authorizationFor(opts: ServerOptions, rbac: RbacAuthorizer, registries: () => RegistrySet, logger: Logger, logWarning: boolean): { authorizer: UnionAuthorizer; node?: NodeAuthorizer } {
  const node = opts.authorizationModes.includes('Node')
    ? new NodeAuthorizer(registries, { apiDomain: opts.apiDomain, log: (msg, err) => logger.warn({ err }, msg) })
    : undefined;
  const warning = alwaysAllowWarning(opts);
  if (warning && logWarning) logger.warn(warning);
  return { authorizer: authorizersFor(opts.authorizationModes, rbac, node), node };
}

/**
 * The start-up warning when --authorization-mode includes AlwaysAllow and some authenticator
 * besides the token files accepts identities: each of them is then a cluster admin (a bootstrap
 * token reads every Secret). Undefined when there is nothing to warn about.
 */
export function alwaysAllowWarning(opts: ServerOptions): string | undefined {
  if (!opts.authorizationModes.includes('AlwaysAllow')) return undefined;
  const named: string[] = [];
  if (opts.enableBootstrapTokenAuth) named.push('bootstrap tokens');
  // Always verified: the key pair is generated when none is given.
  named.push('service-account tokens');
  // The embedded default trusts its generated CA for client certificates (start.ts).
  if (opts.clientCaFile || (!opts.devInsecureHttp && !opts.tlsCertFile)) named.push('x509 client certificates');
  if (opts.oidcIssuerUrl) named.push('OIDC tokens');
  if (opts.authenticationTokenWebhookConfigFile) named.push('webhook tokens');
  if (opts.requestheaderClientCaFile) named.push('the authenticating proxy');
  if (opts.anonymousAuth) named.push('anonymous requests');
  return (
    `--authorization-mode includes AlwaysAllow while ${named.join(', ')} authenticate: every such identity ` +
    '(a joined node, a bootstrap token, any service account, ...) may do anything, including reading every Secret; ' +
    'use --authorization-mode=Node,RBAC'
  );
}
