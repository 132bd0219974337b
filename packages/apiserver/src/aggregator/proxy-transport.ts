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
 * HTTPS agent per APIService version, which verifies the extension against its caBundle (or the
 * system roots when there is none) under the name `<service>.<namespace>.svc`, and presents the
 * proxy client certificate. The caller's own TLS identity never travels: every connection is
 * this server's.
 */
export class ProxyTransport {
  private agents = new Map<string, { version: string; agent: Agent }>();

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
    // The TLS settings live in the spec: a new resourceVersion may carry a new caBundle.
    const version = svc.metadata.resourceVersion ?? '';
    const cached = this.agents.get(name);
    if (cached?.version === version) return cached.agent;
    cached?.agent.destroy();
    const caBundle = svc.spec?.caBundle ? Buffer.from(svc.spec.caBundle, 'base64').toString('utf8') : undefined;
    const agent = new Agent({
      keepAlive: true,
      maxSockets: 100,
      ca: caBundle,
      rejectUnauthorized: svc.spec?.insecureSkipTLSVerify !== true,
      cert: this.clientCert?.certPem,
      key: this.clientCert?.keyPem,
    });
    this.agents.set(name, { version, agent });
    return agent;
  }
}
