import type { Context, Next } from 'koa';
import { Registry } from 'prom-client';
import type { RequestState } from './state.js';
import { withInflightLimit } from './with-inflight-limit.js';

const ctxFor = (verb: string, groups: string[] = ['system:authenticated']) =>
  ({ method: 'GET', path: '/api/v1/configmaps', state: { requestInfo: { verb, isResourceRequest: true }, user: { username: 'u', groups } } }) as unknown as Context & {
    state: RequestState;
  };
const nonResource = (method: string, path: string) =>
  ({ method, path, state: { requestInfo: { verb: method.toLowerCase(), isResourceRequest: false }, user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } } }) as unknown as Context & {
    state: RequestState;
  };

/** A handler that finishes when the test says so. */
function heldHandler() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  const next: Next = () => done;
  return { next, release };
}

async function inflight(registry: Registry, kind: string): Promise<number> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`apiserver_current_inflight_requests{request_kind="${kind}"} `));
  return Number(line?.split(' ')[1]);
}

describe('withInflightLimit', () => {
  test('over the limit a request is 429 TooManyRequests with Retry-After; watches are not counted', async () => {
    const limit = withInflightLimit({ readOnly: 1, mutating: 1 });
    const held = heldHandler();
    const first = limit(ctxFor('get'), held.next);
    await expect(limit(ctxFor('list'), () => Promise.resolve())).rejects.toMatchObject({
      status: { code: 429, reason: 'TooManyRequests', details: { retryAfterSeconds: 1 } },
      headers: { 'Retry-After': '1' },
    });
    await expect(limit(ctxFor('watch'), () => Promise.resolve())).resolves.toBeUndefined();
    await expect(limit(ctxFor('create'), () => Promise.resolve())).resolves.toBeUndefined();
    held.release();
    await first;
    await expect(limit(ctxFor('list'), () => Promise.resolve())).resolves.toBeUndefined();
  });

  test('over the limit, system:masters is still served (upstream), and so are GETs of the health endpoints', async () => {
    const limit = withInflightLimit({ readOnly: 1, mutating: 1 });
    const [r, m] = [heldHandler(), heldHandler()];
    const running = [limit(ctxFor('get'), r.next), limit(ctxFor('create'), m.next)];
    await expect(limit(ctxFor('list', ['system:masters', 'system:authenticated']), () => Promise.resolve())).resolves.toBeUndefined();
    await expect(limit(ctxFor('delete', ['system:masters']), () => Promise.resolve())).resolves.toBeUndefined();
    for (const path of ['/readyz', '/livez', '/healthz', '/readyz/etcd', '/healthz/ping']) {
      await expect(limit(nonResource('GET', path), () => Promise.resolve())).resolves.toBeUndefined();
    }
    // A POST to a health path, or another non-resource path, is an ordinary read-only request.
    await expect(limit(nonResource('POST', '/readyz'), () => Promise.resolve())).rejects.toMatchObject({ status: { code: 429 } });
    await expect(limit(nonResource('GET', '/readyzz'), () => Promise.resolve())).rejects.toMatchObject({ status: { code: 429 } });
    await expect(limit(nonResource('GET', '/version'), () => Promise.resolve())).rejects.toMatchObject({ status: { code: 429 } });
    await expect(limit(ctxFor('update'), () => Promise.resolve())).rejects.toMatchObject({ status: { code: 429 } });
    r.release();
    m.release();
    await Promise.all(running);
  });

  test('apiserver_current_inflight_requests reports the most in flight since the last scrape', async () => {
    const registry = new Registry();
    const limit = withInflightLimit({ readOnly: 10, mutating: 10 }, registry);
    const [a, b, c] = [heldHandler(), heldHandler(), heldHandler()];
    const running = [limit(ctxFor('get'), a.next), limit(ctxFor('list'), b.next), limit(ctxFor('update'), c.next)];
    expect(await inflight(registry, 'readOnly')).toBe(2);
    expect(await inflight(registry, 'mutating')).toBe(1);
    a.release();
    b.release();
    c.release();
    await Promise.all(running);
    // The peak is kept for the scrape after it, then what is in flight now.
    expect(await inflight(registry, 'readOnly')).toBe(2);
    expect(await inflight(registry, 'readOnly')).toBe(0);
    expect(await inflight(registry, 'mutating')).toBe(0);
  });
});
