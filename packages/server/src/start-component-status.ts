import type { ComponentHealth, ComponentProbe } from '@cluster/apiserver';

/** How long one etcd health request may take (upstream's probe allows 20 s; a list waits for all). */
const PROBE_TIMEOUT_MS = 5_000;

/** An etcd client URL with its scheme (`127.0.0.1:2379` is http). */
function baseUrl(endpoint: string): string {
  return /^[a-z]+:\/\//.test(endpoint) ? endpoint.replace(/\/+$/, '') : `http://${endpoint}`;
}

/**
 * Upstream's etcd validator: GET <member>/health; healthy when the JSON answer says
 * `"health": "true"`, the body being the message; a failed request is Unknown with its error.
 */
async function checkEtcd(name: string, endpoint: string): Promise<ComponentHealth> {
  let body: string;
  try {
    const res = await fetch(`${baseUrl(endpoint)}/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    body = (await res.text()).trim();
    if (res.status >= 400) return { name, healthy: false, message: body, error: `HTTP probe failed with statuscode: ${res.status}` };
  } catch (e) {
    return { name, healthy: undefined, message: '', error: (e as Error).message };
  }
  try {
    const health = (JSON.parse(body) as { health?: unknown }).health;
    if (health === 'true' || health === true) return { name, healthy: true, message: body, error: '' };
    return { name, healthy: false, message: body, error: `Unhealthy health check status: ${body}` };
  } catch {
    return { name, healthy: false, message: body, error: `Unhealthy health check status: ${body}` };
  }
}

/** The componentstatuses probe of a replica: one `etcd-<i>` per etcd endpoint, checked concurrently. */
export function etcdComponentProbe(endpoints: readonly string[]): ComponentProbe {
  return () => Promise.all(endpoints.map((e, i) => checkEtcd(`etcd-${i}`, e)));
}
