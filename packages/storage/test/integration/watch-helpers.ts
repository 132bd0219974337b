import type { KubeObject } from '@cluster/apimachinery';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type EtcdProcess } from '../../src/etcd-process/index.js';
import type { WatchEvent } from '../../src/interfaces.js';

/** A ConfigMap-like object for a test. */
export function cm(namespace: string, name: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels ? { labels } : {}) }, data };
}

/** Reads up to `n` events, giving up after `timeoutMs` (so a missing event fails the test instead of hanging it). */
export async function collect(it: AsyncIterable<WatchEvent>, n: number, timeoutMs = 3_000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const iter = it[Symbol.asyncIterator]();
  const deadline = Date.now() + timeoutMs;
  while (out.length < n) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      iter.next(),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left))),
    ]);
    clearTimeout(timer);
    if (r === 'timeout' || r.done) break;
    out.push(r.value);
  }
  return out;
}

/** [type, name, resourceVersion] of each event, for compact assertions. */
export const summary = (events: WatchEvent[]): [string, string | undefined, string | undefined][] =>
  events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]);

/** Starts a private etcd in a temp dir; `stop` kills it and removes the dir. */
export async function privateEtcd(): Promise<{ etcd: EtcdProcess; dir: string; stop: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'storage-watch-'));
  const etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
  return {
    etcd,
    dir,
    stop: async () => {
      await etcd.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
