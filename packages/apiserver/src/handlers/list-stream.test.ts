import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { KubeList } from '@cluster/apimachinery';
import { HeldStore, SharedObjectStore, rawItemJson, type RawItem } from '@cluster/storage';
import { SliceScheduler, type SliceOwner } from '../flowcontrol/slice-scheduler.js';
import { ItemEncodings } from './item-encodings.js';
import { jsonListStream, rawJsonListStream } from './list-stream.js';

function configMapList(n: number, tag = ''): KubeList {
  return {
    kind: 'ConfigMapList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '77' },
    items: Array.from({ length: n }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${tag}${i}`, namespace: 'ns', resourceVersion: String(100 + i) },
      data: { v: 'x'.repeat(i % 7), u: 'é"\\\n\u2028' },
    })),
  };
}

/** A scheduler that records whose slice ran, in order. */
function recordingScheduler(): { scheduler: Pick<SliceScheduler, 'submit' | 'streaming'>; order: string[] } {
  const order: string[] = [];
  const inner = new SliceScheduler();
  const scheduler = {
    streaming: (owner: SliceOwner) => inner.streaming(owner),
    submit: (owner: SliceOwner, slice: () => void) =>
      inner.submit(owner, () => {
        order.push(owner.flow);
        slice();
      }),
  };
  return { scheduler, order };
}

async function collect(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  await pipeline(
    stream,
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        parts.push(chunk);
        cb();
      },
    }),
  );
  return Buffer.concat(parts).toString('utf8');
}

describe('sliced list streams', () => {
  test.each([0, 1, 63, 64, 65, 200, 3000])('a list of %d items is byte-identical to its JSON.stringify, plain and from kept encodings', async (n) => {
    const list = configMapList(n);
    const expected = JSON.stringify(list);
    expect((await collect(jsonListStream(list))) === expected).toBe(true);
    const encodings = new ItemEncodings();
    try {
      expect((await collect(jsonListStream(list, encodings, { level: 'L', flow: 'f' }))) === expected).toBe(true);
      expect((await collect(jsonListStream(list, encodings, { level: 'L', flow: 'f' }))) === expected).toBe(true);
    } finally {
      encodings.clear();
    }
  });

  test('stored items stream byte-identical to the list JSON with their resourceVersions spliced in', async () => {
    const list = configMapList(300);
    const envelope = { kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata };
    const rawItems = list.items.map((item) => {
      const { resourceVersion, ...meta } = item.metadata;
      return { key: Buffer.from(`/registry/configmaps/ns/${meta.name}`), value: Buffer.from(JSON.stringify({ ...item, metadata: meta })), modRevision: resourceVersion! };
    });
    const text = await collect(rawJsonListStream(envelope, rawItems, { level: 'L', flow: 'f' }));
    // The whole document in one piece: the envelope, then every stored item with its resourceVersion.
    const whole = `${JSON.stringify(envelope).slice(0, -1)},"items":[${rawItems.map((r) => Buffer.concat(rawItemJson(r)).toString('utf8')).join(',')}]}`;
    expect(text === whole).toBe(true);
    expect(JSON.parse(text)).toEqual(list);
  });

  test.each([0, 1, 64, 65, 300])('%d items held in a shared store stream byte-identical to the list JSON, also mixed with etcd items', async (n) => {
    const list = configMapList(n);
    const envelope = { kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata };
    const store = new HeldStore(new SharedObjectStore(SharedObjectStore.createBuffer({ initialBytes: 1 << 20 }), 1));
    const held = list.items.map((item) => store.hold(`/registry/configmaps/ns/${item.metadata.name}`, Number(item.metadata.resourceVersion), item)!);
    expect(await collect(rawJsonListStream(envelope, held, { level: 'L', flow: 'f' }))).toBe(JSON.stringify(list));
    // A chunk with an item from etcd among handles is written piece by piece, to the same bytes.
    const mixed: RawItem[] = held.slice();
    if (n > 1) {
      const { resourceVersion, ...meta } = list.items[1]!.metadata;
      mixed[1] = { key: Buffer.from('k'), value: Buffer.from(JSON.stringify({ ...list.items[1], metadata: meta })), modRevision: resourceVersion! };
    }
    expect(JSON.parse(await collect(rawJsonListStream(envelope, mixed, { level: 'L', flow: 'f' })))).toEqual(list);
  });

  test('the slices of concurrent lists of different flows interleave, each list still whole', async () => {
    const { scheduler, order } = recordingScheduler();
    const a = configMapList(640, 'a');
    const b = configMapList(640, 'b');
    const [ta, tb] = await Promise.all([
      collect(jsonListStream(a, undefined, { level: 'L', flow: 'flood', scheduler })),
      collect(jsonListStream(b, undefined, { level: 'L', flow: 'quiet', scheduler })),
    ]);
    expect(ta === JSON.stringify(a)).toBe(true);
    expect(tb === JSON.stringify(b)).toBe(true);
    // Envelope, 10 chunks of 64 items, the closing bracket, the end: 13 slices each, taking turns.
    expect(order).toHaveLength(26);
    for (let i = 0; i + 1 < order.length; i += 2) expect(new Set(order.slice(i, i + 2))).toEqual(new Set(['flood', 'quiet']));
  });

  test('a response counts as being written from its first read until it is destroyed; one never read does not count', async () => {
    const scheduler = new SliceScheduler();
    const owner = { level: 'L', flow: 'f' };
    const leave = scheduler.enter(owner);
    expect(scheduler.sharing).toBe(true);
    const unread = jsonListStream(configMapList(100), undefined, { ...owner, scheduler });
    expect(scheduler.sharing).toBe(true);
    const s = jsonListStream(configMapList(100), undefined, { ...owner, scheduler });
    await new Promise<void>((resolve) => {
      s.once('readable', () => resolve());
      s.read(0);
    });
    expect(scheduler.sharing).toBe(false);
    s.destroy();
    await new Promise((r) => setImmediate(r));
    expect(scheduler.sharing).toBe(true);
    unread.destroy();
    leave();
    expect(scheduler.sharing).toBe(false);
  });

  test('no chunk is made ahead of what the reader takes (backpressure)', async () => {
    const { scheduler, order } = recordingScheduler();
    const s = jsonListStream(configMapList(1000), undefined, { level: 'L', flow: 'f', scheduler });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toHaveLength(0);
    const first = await new Promise<Buffer>((resolve) => {
      s.once('readable', () => resolve(s.read() as Buffer));
      s.read(0);
    });
    expect(first.toString()).toMatch(/^\{"kind":"ConfigMapList"/);
    await new Promise((r) => setTimeout(r, 20));
    // The first slice made the envelope; nothing more was made while nobody read.
    expect(order.length).toBeLessThanOrEqual(2);
    s.destroy();
    await new Promise((r) => setTimeout(r, 20));
    expect(order.length).toBeLessThanOrEqual(2);
  });
});
