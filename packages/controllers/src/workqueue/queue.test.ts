import { Registry } from 'prom-client';
import { registerControllerMetrics } from '../metrics.js';
import { WorkQueue } from './queue.js';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('WorkQueue', () => {
  test('a key added while waiting is processed once; keys run one at a time', async () => {
    const q = new WorkQueue({ name: 't' });
    const done: string[] = [];
    let active = 0;
    let maxActive = 0;
    q.add('a');
    q.add('a');
    q.add('b');
    const abort = new AbortController();
    const running = q.run(async (key) => {
      maxActive = Math.max(maxActive, ++active);
      await tick();
      done.push(key);
      active--;
    }, abort.signal);
    for (let i = 0; i < 100 && done.length < 2; i++) await tick();
    abort.abort();
    await running;
    expect(done).toEqual(['a', 'b']);
    expect(maxActive).toBe(1);
  });

  test('workers: different keys run side by side, one key never beside itself', async () => {
    const q = new WorkQueue({ name: 'par', workers: 3 });
    const active = new Set<string>();
    let maxActive = 0;
    let overlap = false;
    const runs: string[] = [];
    for (const k of ['a', 'b', 'c', 'd']) q.add(k);
    const abort = new AbortController();
    const running = q.run(async (key) => {
      if (active.has(key)) overlap = true;
      active.add(key);
      maxActive = Math.max(maxActive, active.size);
      // 'a' is added again while it runs: it runs once more, after.
      if (key === 'a' && runs.filter((r) => r === 'a').length === 0) q.add('a');
      await tick(10);
      runs.push(key);
      active.delete(key);
    }, abort.signal);
    for (let i = 0; i < 200 && runs.length < 5; i++) await tick();
    abort.abort();
    await running;
    expect(maxActive).toBe(3);
    expect(overlap).toBe(false);
    expect(runs.sort()).toEqual(['a', 'a', 'b', 'c', 'd']);
  });

  test('a failing key is retried with backoff until it succeeds, and counted', async () => {
    const registry = new Registry();
    const metrics = registerControllerMetrics(registry);
    const q = new WorkQueue({ name: 'flaky', metrics, baseRetryMs: 5 });
    let calls = 0;
    const abort = new AbortController();
    q.add('k');
    const running = q.run(async () => {
      calls++;
      if (calls < 3) throw new Error('not yet');
    }, abort.signal);
    for (let i = 0; i < 200 && calls < 3; i++) await tick();
    abort.abort();
    await running;
    expect(calls).toBe(3);
    const text = await registry.metrics();
    expect(text).toContain('workqueue_retries_total{name="flaky"} 2');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="flaky"} 2');
    expect(text).toContain('workqueue_adds_total{name="flaky"} 3');
  });

  test('addAfter delays a key; stopping drops what waits', async () => {
    const q = new WorkQueue({ name: 'later' });
    const done: string[] = [];
    const abort = new AbortController();
    const running = q.run(async (key) => void done.push(key), abort.signal);
    q.addAfter('x', 30);
    await tick(10);
    expect(done).toEqual([]);
    for (let i = 0; i < 100 && done.length === 0; i++) await tick();
    expect(done).toEqual(['x']);
    q.addAfter('y', 1000);
    abort.abort();
    await running;
    q.add('z');
    expect(q.depth).toBe(0);
  });
});
