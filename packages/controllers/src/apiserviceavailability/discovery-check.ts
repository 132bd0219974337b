import { request } from 'node:https';
import type { ApiService, ResolvedEndpoint } from './reconcile.js';

/** The client certificate the aggregator presents (its --proxy-client-cert-file and key). */
export interface ProxyClientCertificate {
  certPem: string;
  keyPem: string;
}

/** Upstream's bound on one discovery check. */
const CHECK_TIMEOUT_MS = 5_000;

/**
 * Upstream's discovery check: GET /apis/<group>/<version> from the extension at `endpoint`,
 * verified against the APIService's caBundle as `<service>.<namespace>.svc`, presenting the proxy
 * client certificate as system:kube-aggregator; any 2xx answer passes. Resolves with undefined
 * on success, else the reason it failed; never rejects.
 */
export function checkDiscovery(svc: ApiService, endpoint: ResolvedEndpoint, cert: ProxyClientCertificate | undefined, timeoutMs = CHECK_TIMEOUT_MS): Promise<string | undefined> {
  const path = `/apis/${svc.spec?.group ?? ''}/${svc.spec?.version ?? ''}`;
  const ca = svc.spec?.caBundle ? Buffer.from(svc.spec.caBundle, 'base64').toString('utf8') : undefined;
  return new Promise((resolve) => {
    let settled = false;
    const done = (err: string | undefined) => {
      if (settled) return;
      settled = true;
      resolve(err);
    };
    try {
      const req = request(
        {
          host: endpoint.host,
          port: endpoint.port,
          servername: endpoint.serverName,
          method: 'GET',
          path,
          agent: false,
          ca,
          rejectUnauthorized: svc.spec?.insecureSkipTLSVerify !== true,
          cert: cert?.certPem,
          key: cert?.keyPem,
          headers: { Accept: 'application/json', Host: `${endpoint.serverName}:${endpoint.port}`, 'X-Remote-User': 'system:kube-aggregator', 'X-Remote-Group': 'system:masters' },
        },
        (res) => {
          res.resume();
          const code = res.statusCode ?? 0;
          done(code >= 200 && code < 300 ? undefined : `bad status from https://${endpoint.host}:${endpoint.port}${path}: ${code}`);
        },
      );
      req.setTimeout(timeoutMs, () => {
        req.destroy();
        done(`Get "https://${endpoint.host}:${endpoint.port}${path}": context deadline exceeded`);
      });
      req.on('error', (err) => done(`Get "https://${endpoint.host}:${endpoint.port}${path}": ${err.message}`));
      req.end();
    } catch (err) {
      done((err as Error).message);
    }
  });
}
