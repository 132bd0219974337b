import { runHealth, type HealthCheck } from './health.js';

const ok = (name: string): HealthCheck => ({ name, check: async () => {} });
const bad = (name: string): HealthCheck => ({ name, check: async () => { throw new Error('etcd down'); } });

describe('runHealth (SPEC 4.9)', () => {
  test('plain ok', async () => {
    expect(await runHealth('livez', [ok('ping'), ok('etcd')], new URLSearchParams())).toEqual({ code: 200, body: 'ok' });
  });
  test('verbose lists each check and ends with the passed line', async () => {
    const r = await runHealth('readyz', [ok('ping'), ok('etcd')], new URLSearchParams('verbose'));
    expect(r).toEqual({ code: 200, body: '[+]ping ok\n[+]etcd ok\nreadyz check passed\n' });
  });
  test('exclude marks the check excluded and ignores its failure', async () => {
    const r = await runHealth('readyz', [ok('ping'), bad('etcd')], new URLSearchParams('verbose&exclude=etcd'));
    expect(r).toEqual({ code: 200, body: '[+]ping ok\n[+]etcd excluded: ok\nreadyz check passed\n' });
  });
  test('a failing check is 500 and withholds the reason', async () => {
    const r = await runHealth('readyz', [ok('ping'), bad('etcd')], new URLSearchParams());
    expect(r.code).toBe(500);
    expect(r.body).toBe('[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n');
  });
  test('unknown exclude is warned about', async () => {
    const r = await runHealth('livez', [ok('ping')], new URLSearchParams('verbose&exclude=nope'));
    expect(r.body).toContain('warn: some health checks cannot be excluded: no matches for "nope"');
    expect(r.code).toBe(200);
  });
  test('single check endpoints', async () => {
    expect(await runHealth('livez', [ok('ping'), bad('etcd')], new URLSearchParams(), 'ping')).toEqual({ code: 200, body: 'ok' });
    expect((await runHealth('livez', [bad('etcd')], new URLSearchParams(), 'etcd')).code).toBe(500);
    expect((await runHealth('livez', [ok('ping')], new URLSearchParams(), 'nope')).code).toBe(404);
  });
});
