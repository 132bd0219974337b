import type { Middleware } from 'koa';
import { serviceResolverFrom } from '../admission/webhook-resolve.js';
import type { RequestState } from '../filters/state.js';
import type { RegistrySet } from '../registry/registry-set.js';
import type { ApiCatalog } from '../server/api-catalog.js';
import { ApiServiceIndex } from './apiservice-index.js';
import { ExternalDiscovery } from './external-discovery.js';
import { withAggregatorProxy } from './proxy-handler.js';
import { ProxyTransport, type ProxyClientCertificate } from './proxy-transport.js';

/** How a server aggregates extension API servers (every part optional). */
export interface AggregationConfig {
  /** --proxy-client-cert-file/--proxy-client-key-file: presented to extensions (none: no client certificate). */
  proxyClientCert?: ProxyClientCertificate;
  /** This server's --requestheader-* header names, never forwarded from a caller. */
  stripHeaders?: { names: readonly string[]; prefixes: readonly string[] };
  /** How often extensions' discovery is fetched again (ms). */
  discoveryRefreshMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

/**
 * The aggregation layer of one replica (upstream's kube-aggregator minus its controllers): the
 * APIService index, the proxy in the request path and the extensions' discovery. Nothing runs
 * until `start`; before it the proxy routes nothing.
 */
export class Aggregator {
  readonly index: ApiServiceIndex;
  readonly transport: ProxyTransport;
  readonly middleware: Middleware<RequestState>;
  private readonly discovery: ExternalDiscovery;

  constructor(registries: () => RegistrySet, catalog: ApiCatalog, apiDomain: string, requestTimeoutMs: number, config: AggregationConfig = {}) {
    const log = config.log ?? (() => {});
    this.index = new ApiServiceIndex(registries, apiDomain, log);
    this.transport = new ProxyTransport(serviceResolverFrom(registries), config.proxyClientCert);
    this.middleware = withAggregatorProxy({ index: this.index, transport: this.transport, requestTimeoutMs, stripHeaders: config.stripHeaders, log });
    this.discovery = new ExternalDiscovery({
      index: this.index,
      transport: this.transport,
      publish: (external) => catalog.setExternalGroupVersions(external),
      refreshMs: config.discoveryRefreshMs,
      log,
    });
  }

  /** Starts the APIService watch and the discovery refresh; resolves after the first list. */
  async start(): Promise<void> {
    await this.index.start();
    this.discovery.start();
  }

  stop(): void {
    this.discovery.stop();
    this.index.stop();
    this.transport.close();
  }
}
