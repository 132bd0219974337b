import { Agent, request, type RequestOptions } from 'node:https';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { ResolvedService, ServiceResolver } from '../admission/webhook-dispatcher.js';
import type { ApiService } from '../resources/apiregistration/types.js';
import { DEFAULT_SERVICE_PORT } from '../resources/apiregistration/validation.js';

/** The client certificate this server presents to extensions (--proxy-client-cert-file/--proxy-client-key-file). */
export interface ProxyClientCertificate {
  certPem: string;
  keyPem: string;
}

/** Where a request for an APIService goes: the resolved endpoint and the TLS settings to reach it. */
export interface ProxyTarget {
  endpoint: ResolvedService;
  options: RequestOptions;
}

/**
 * Reaches extension API servers: resolves an APIService's Service through its Endpoints (no
 * service proxy exists here, as upstream's --enable-aggregator-routing) and holds one keep-alive
 * HTTPS agent per APIService and TLS settings, which verifies the extension against its caBundle
 * (or the system roots when there is none) under the name `<service>.<namespace>.svc`, and
 * presents the proxy client certificate. The caller's own TLS identity never travels: every
 * connection is this server's. A write to the APIService that keeps its TLS settings (its status,
 * written by the availability controller of whichever replica leads; a label) keeps the agent; a
 * new caBundle or insecureSkipTLSVerify gets a new one for the next request, while requests in
 * flight on the old one (watches) run to their end, as with upstream's per-APIService transport.
 */
export class ProxyTransport {
  private agents = new Map<string, { tls: string; agent: Agent }>();

  constructor(
    private readonly resolve: ServiceResolver,
    private readonly clientCert: ProxyClientCertificate | undefined,
  ) {}

  /** Resolves the endpoint of `svc`. @throws when the Service, its port or a ready endpoint is missing. */
  async target(svc: ApiService): Promise<ProxyTarget> {
    const ref = svc.spec?.service;
    if (!ref?.namespace || !ref.name) throw new Error(`APIService ${svc.metadata.name ?? ''} has no service`);
    const endpoint = await this.resolve(ref.namespace, ref.name, ref.port ?? DEFAULT_SERVICE_PORT);
    return { endpoint, options: { host: endpoint.host, port: endpoint.port, servername: endpoint.serverName, agent: this.agentFor(svc) } };
  }

  /** Starts a request to `target`; the caller writes the body and handles the answer and errors. */
  request(target: ProxyTarget, method: string, path: string, headers: OutgoingHttpHeaders, onResponse: (res: IncomingMessage) => void): ClientRequest {
    return request({ ...target.options, method, path, headers }, onResponse);
  }

  /** Drops the agents of APIServices no longer present (their idle connections close). */
  retain(names: ReadonlySet<string>): void {
    for (const [name, entry] of this.agents) {
      if (!names.has(name)) {
        entry.agent.destroy();
        this.agents.delete(name);
      }
    }
  }

  close(): void {
    for (const entry of this.agents.values()) entry.agent.destroy();
    this.agents.clear();
  }

  private agentFor(svc: ApiService): Agent {
    const name = svc.metadata.name ?? '';
    // Only the TLS settings decide the connections: a new resourceVersion alone (a status write)
    // must not cut the requests in flight.
    const caBundle = svc.spec?.caBundle ? Buffer.from(svc.spec.caBundle, 'base64').toString('utf8') : undefined;
    const rejectUnauthorized = svc.spec?.insecureSkipTLSVerify !== true;
    const tls = JSON.stringify([caBundle ?? null, rejectUnauthorized]);
    const cached = this.agents.get(name);
    if (cached?.tls === tls) return cached.agent;
    if (cached) retire(cached.agent);
    const agent = new Agent({
      keepAlive: true,
      maxSockets: 100,
      ca: caBundle,
      rejectUnauthorized,
      cert: this.clientCert?.certPem,
      key: this.clientCert?.keyPem,
    });
    this.agents.set(name, { tls, agent });
    return agent;
  }
}

/**
 * Takes `agent` out of use without cutting what it carries: its idle connections close now, and
 * each one in use closes when its request ends instead of going back to the pool.
 */
function retire(agent: Agent): void {
  agent.keepSocketAlive = () => false;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}
