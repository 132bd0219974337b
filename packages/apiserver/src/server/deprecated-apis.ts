import type { Context } from 'koa';
import { Gauge, type Registry } from 'prom-client';
import { warningHeader } from '../handlers/responders.js';
import type { RequestState } from '../filters/state.js';
import type { ResourceInfo } from '../registry/resource-info.js';

/** Upstream's Warning text for a removed version: `rbac.../v1beta1 Role is deprecated in v1.17+, ...`. */
export function deprecationWarning(info: ResourceInfo): string | undefined {
  const d = info.deprecated;
  const apiVersion = info.group ? `${info.group}/${info.version}` : info.version;
  if (!d && info.deprecatedSince) return `${apiVersion} ${info.kind} is deprecated in v${info.deprecatedSince}+`;
  if (!d) return info.deprecationWarning;
  return `${apiVersion} ${info.kind} is deprecated in v${d.deprecatedRelease}+, unavailable in v${d.removedRelease}+; use ${d.replacementApiVersion} ${info.kind}`;
}

/**
 * The signals of a request to a removed version (SPEC 9.3 rule 10): the Warning header, the
 * audit annotations `<domain>/deprecated` and `<domain>/removed-release`, and the gauge
 * `apiserver_requested_deprecated_apis` set to 1 for that group, version and resource.
 */
export function deprecatedApiSignals(metrics: Registry, apiDomain: string) {
  const gauge = new Gauge({
    name: 'apiserver_requested_deprecated_apis',
    help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
    labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
    registers: [metrics],
  });
  return (ctx: Context & { state: RequestState }, info: ResourceInfo, subresource: string): void => {
    const text = deprecationWarning(info);
    if (!text) return;
    ctx.append('Warning', warningHeader(text));
    if (!info.deprecated && !info.deprecatedSince) return;
    const removedRelease = info.deprecated?.removedRelease ?? '';
    const audit = ctx.state.audit;
    if (audit) {
      audit.annotations[`${apiDomain}/deprecated`] = 'true';
      if (removedRelease) audit.annotations[`${apiDomain}/removed-release`] = removedRelease;
    }
    gauge.set({ group: info.group, version: info.version, resource: info.resource, subresource, removed_release: removedRelease }, 1);
  };
}
