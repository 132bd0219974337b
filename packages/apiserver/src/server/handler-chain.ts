import type Koa from 'koa';
import type { Middleware } from 'koa';
import type { RequestState } from '../filters/state.js';
import { withRequestInfo } from '../filters/with-request-info.js';
import { withRequestTarget } from '../filters/with-request-target.js';
import { withObservability } from '../filters/with-observability.js';
import { withInflightLimit } from '../filters/with-inflight-limit.js';
import { withPriorityAndFairness } from '../filters/with-priority-and-fairness.js';
import { withRequestDeadline } from '../filters/with-request-deadline.js';
import { withBody } from '../filters/with-body.js';
import { withAuthentication } from '../filters/with-authentication.js';
import { withAuthorization } from '../filters/with-authorization.js';
import { withImpersonation } from '../filters/with-impersonation.js';
import { withAudit } from '../filters/with-audit.js';
import type { RegistrySet } from '../registry/registry-set.js';
import type { ApiServerConfig } from './app.js';
import type { ApiCatalog } from './api-catalog.js';
import { apiHandler } from './api-handler.js';
import type { WatchFlusher } from '../handlers/watch-flusher.js';

/** Upstream's --request-timeout default. */
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * The one place the filter order is written, upstream's (DESIGN "Decided for the third wave"):
 * request target (request line, Host and path checks that Go's server makes before upstream's
 * chain) -> request info -> metrics, log and recovery -> request deadline -> authentication ->
 * audit (when configured) -> impersonation -> priority and fairness (or the in-flight limit when it is
 * off) -> authorization -> aggregator proxy -> body -> handler
 * (admission runs inside it). The deadline comes before authentication, as upstream's does: a bad
 * `timeout` parameter is a 400 whoever sends it. Nothing before authorization reads a body, and
 * nothing before authentication holds an in-flight slot: an unauthenticated or forbidden request is
 * answered at once, whatever it declared it would send (the listener then stops its body).
 */
export function buildHandlerChain(
  app: Koa<RequestState>,
  config: ApiServerConfig,
  registries: RegistrySet,
  catalog: ApiCatalog,
  /** Writes the server's watch streams in turns (see WatchFlusher). */
  flusher: WatchFlusher,
  aggregatorProxy?: Middleware<RequestState>,
): void {
  const metaGroup = `meta.${config.apiDomain}`;
  app.use(withRequestTarget(metaGroup, config.protobuf));
  app.use(withRequestInfo());
  app.use(withObservability({ logger: config.logger, registry: config.metrics, metaGroup, protobuf: config.protobuf }));
  app.use(withRequestDeadline(config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS));
  app.use(withAuthentication(config.authenticators, config.anonymousAuth));
  if (config.audit) app.use(withAudit(config.audit, config.apiDomain));
  app.use(withImpersonation(config.authorizer, config.apiDomain));
  app.use(config.flowControl ? withPriorityAndFairness(config.flowControl) : withInflightLimit(config.inflight, config.metrics));
  app.use(withAuthorization(config.authorizer, config.apiDomain));
  // Extension API servers' group versions are proxied once authorized, their bodies unread.
  if (aggregatorProxy) app.use(aggregatorProxy);
  app.use(withBody());
  app.use(apiHandler(config, registries, catalog, flusher));
}
