import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { KeyedCounter, KeyedHistogram, seriesKey } from '../metrics/keyed-metrics.js';
import { toStatusError } from '../handlers/responders.js';
import type { ProtobufCodec } from '../handlers/scope.js';
import type { RequestInfo } from '../request/request-info.js';
import type { RequestState } from './state.js';
import { writeStatusError } from './write-status.js';
import { requestQuery } from './request-query.js';

/** Upstream's metric verb: LIST/WATCH for collection reads, APPLY for apply patches, else the method. */
export function metricsVerb(method: string, info: RequestInfo, contentType: string): string {
  if (!info.isResourceRequest) return method.toUpperCase();
  if (info.verb === 'list') return 'LIST';
  if (info.verb === 'watch') return 'WATCH';
  if (info.verb === 'patch' && contentType.startsWith('application/apply-patch')) return 'APPLY';
  if (info.verb === 'deletecollection') return 'DELETE';
  return method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
}

/** Upstream's scope label: resource (named object), namespace, or cluster. */
export function metricsScope(info: RequestInfo): string {
  if (!info.isResourceRequest) return '';
  if (info.name) return 'resource';
  if (info.namespace && info.resource !== 'namespaces') return 'namespace';
  return 'cluster';
}

/**
 * Outermost filter: recovers from any failure (answering a Status, never crashing the replica),
 * counts and times every request, and writes one JSON log line per request.
 */
export function withObservability(deps: {
  logger: Logger;
  registry: Registry;
  metaGroup: string;
  protobuf?: ProtobufCodec;
}): Middleware<RequestState> {
  const requests = new KeyedCounter(
    'apiserver_request_total',
    'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    deps.registry,
  );
  const duration = new KeyedHistogram(
    'apiserver_request_duration_seconds',
    'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    deps.registry,
  );
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } catch (e) {
      const err = toStatusError(e);
      if (err.status.code >= 500) deps.logger.error({ err: e, path: ctx.path }, 'request failed');
      writeStatusError(ctx, err, deps.metaGroup, deps.protobuf);
    }
    const seconds = (performance.now() - start) / 1e3;
    const info = ctx.state.requestInfo;
    // Only a patch's verb label depends on its Content-Type.
    const verb = metricsVerb(ctx.method, info, info.verb === 'patch' ? ctx.get('Content-Type') : '');
    const dryRun = requestQuery(ctx).has('dryRun') ? 'All' : '';
    const scope = metricsScope(info);
    const key = seriesKey([verb, dryRun, info.apiGroup, info.apiVersion, info.resource, info.subresource, scope]);
    const labels = () => ({
      verb,
      dry_run: dryRun,
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      scope,
      component: 'apiserver',
    });
    const code = String(ctx.status);
    requests.inc(`${key}${code}`, () => ({ ...labels(), code }));
    // Watches last as long as the client stays; upstream keeps them out of latency histograms too.
    if (info.verb !== 'watch') duration.observe(key, labels, seconds);
    if (!deps.logger.isLevelEnabled('info')) return;
    deps.logger.info(
      {
        method: ctx.method,
        path: ctx.path,
        verb: info.verb,
        user: ctx.state.user?.username ?? '',
        userAgent: ctx.get('User-Agent'),
        status: ctx.status,
        latencyMs: Math.round(seconds * 1e6) / 1e3,
      },
      'request',
    );
  };
}
