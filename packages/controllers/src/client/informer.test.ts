import type { KubeObject } from '@cluster/apimachinery';
import { ApiError, type ApiClient, type WatchEvent } from './api-client.js';
import { Informer } from './informer.js';

const obj = (name: string, rv: string, owned = false): KubeObject => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv, ...(owned ? { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'o' }] } : {}) },
});

/** A client whose lists and watches follow a script: each watch plays its events, then ends with 410 or waits. */
function scriptedClient(lists: KubeObject[][], watches: { events: WatchEvent[]; gone: boolean }[]): { client: ApiClient; accepts: (string | undefined)[] } {
  const accepts: (string | undefined)[] = [];
  const client = {
    async list(_path: string, accept?: string) {
      accepts.push(accept);
      const items = lists.shift() ?? [];
      return { metadata: { resourceVersion: String(items.length) }, items };
    },
    watch(_path: string, onEvent: (e: WatchEvent) => void, signal: AbortSignal, accept?: string) {
      accepts.push(accept);
      const w = watches.shift();
      if (!w) return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      for (const e of w.events) onEvent(e);
      return w.gone ? Promise.reject(new ApiError(410, { reason: 'Expired' })) : Promise.resolve();
    },
  };
  return { client: client as unknown as ApiClient, accepts };
}

test('store holds only what it keeps; a relist after 410 reports removals of held objects and calls relisted', async () => {
  const { client, accepts } = scriptedClient(
    [
      [obj('a', '1', true), obj('b', '2')],
      [obj('c', '5', true)],
    ],
    [{ events: [{ type: 'MODIFIED', object: obj('b', '3', true) }, { type: 'ADDED', object: obj('d', '4') }], gone: true }],
  );
  const seen: string[] = [];
  const relists: boolean[] = [];
  const informer = new Informer(client, '/api/v1/configmaps', {
    retryMs: 1,
    accept: { list: 'L', watch: 'W' },
    store: (o) => (o.metadata.ownerReferences ? { metadata: { name: o.metadata.name, namespace: o.metadata.namespace, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion } } : undefined),
    relisted: (first) => relists.push(first),
  });
  informer.onChange((type, o, previous) => seen.push(`${type} ${o.metadata.name} prev=${previous?.metadata.resourceVersion ?? '-'}`));
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  for (let i = 0; i < 100 && relists.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
  abort.abort();
  await running;
  expect(seen).toEqual([
    'ADDED a prev=-',
    'ADDED b prev=-',
    'MODIFIED b prev=-',
    'ADDED d prev=-',
    // The relist: c is new; a and b (held) are gone; d (never held) is not reported.
    'ADDED c prev=-',
    'DELETED a prev=1',
    'DELETED b prev=3',
  ]);
  expect(relists).toEqual([true, false]);
  expect(informer.list().map((o) => o.metadata.name)).toEqual(['c']);
  expect(accepts.slice(0, 2)).toEqual(['L', 'W']);
});
