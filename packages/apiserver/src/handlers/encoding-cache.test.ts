import { EncodingCache } from './encoding-cache.js';
import { jsonListStream, rawJsonListStream } from './list-stream.js';
import { ItemEncodings } from './item-encodings.js';

describe('EncodingCache', () => {
  test('keeps encodings per event and evicts the oldest event past capacity', () => {
    const cache = new EncodingCache<object>(2);
    const [a, b, c] = [{}, {}, {}];
    cache.set(a, 'json', 'A');
    cache.set(a, 'protobuf', 'Ap');
    cache.set(b, 'json', 'B');
    expect(cache.get(a, 'json')).toBe('A');
    expect(cache.get(a, 'protobuf')).toBe('Ap');
    cache.set(c, 'json', 'C');
    expect(cache.get(a, 'json')).toBeUndefined();
    expect(cache.get(b, 'json')).toBe('B');
    expect(cache.get(c, 'json')).toBe('C');
  });

  test('past capacity the oldest quarter goes, newest kept, size never over capacity', () => {
    const cache = new EncodingCache<object>(8);
    const events = Array.from({ length: 20 }, () => ({}));
    events.forEach((e, i) => {
      cache.set(e, 'json', String(i));
      expect(cache.size).toBeLessThanOrEqual(8);
    });
    // 8 kept; the 9th dropped 0-1, the 11th 2-3, ... the 19th 10-11: 12-19 remain.
    expect(events.map((e) => cache.get(e, 'json') ?? '-')).toEqual([...Array(12).fill('-'), '12', '13', '14', '15', '16', '17', '18', '19']);
  });
});

describe('EncodingCache idle', () => {
  test('is emptied after a period in which nothing new was encoded, not while encodings keep coming', async () => {
    const cache = new EncodingCache<object>(10, 40);
    const a = {};
    cache.set(a, 'json', 'A');
    // Busy: a new event every 10 ms keeps what is there.
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 10));
      cache.set({}, 'json', String(i));
    }
    expect(cache.get(a, 'json')).toBe('A');
    await new Promise((r) => setTimeout(r, 150));
    expect(cache.size).toBe(0);
    // And it works again afterwards.
    cache.set(a, 'json', 'A2');
    expect(cache.get(a, 'json')).toBe('A2');
  });
});

// Sizes around the chunk boundaries (64 decoded or stored items a chunk) and past them.
const LIST_SIZES = [0, 1, 63, 64, 65, 127, 128, 129, 1000];

describe('jsonListStream', () => {
  test.each(LIST_SIZES)('a list of %d items streams as the same JSON document', async (n) => {
    const list = {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '9', continue: 'x' },
      items: Array.from({ length: n }, (_, i) => ({ metadata: { name: `cm-${i}` }, data: { i: String(i) } })),
    };
    let text = '';
    for await (const chunk of jsonListStream(list)) text += String(chunk);
    expect(JSON.parse(text)).toEqual(list);
  });

  test.each(LIST_SIZES)('with kept item encodings a list of %d items is the very same text, first and second time', async (n) => {
    const list = {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '9', continue: 'x' },
      items: Array.from({ length: n }, (_, i) => ({ metadata: { name: `cm-${i}` }, data: { i: String(i), s: 'é"\\\n' } })),
    };
    const encodings = new ItemEncodings();
    const render = async (): Promise<string> => {
      let text = '';
      for await (const chunk of jsonListStream(list, encodings)) text += String(chunk);
      return text;
    };
    try {
      expect(await render()).toBe(JSON.stringify(list));
      expect(encodings.size).toBe(list.items.reduce((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0));
      expect(await render()).toBe(JSON.stringify(list));
    } finally {
      encodings.clear();
    }
  });
});

describe('rawJsonListStream', () => {
  test.each(LIST_SIZES)('a list of %d stored items streams as one JSON document with each resourceVersion', async (n) => {
    const envelope = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '900' } };
    const rawItems = Array.from({ length: n }, (_, i) => ({
      key: Buffer.from(`/registry/configmaps/ns/cm-${i}`),
      value: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'ns' }, data: { i: String(i) } })),
      modRevision: String(100 + i),
    }));
    let text = '';
    for await (const chunk of rawJsonListStream(envelope, rawItems)) text += String(chunk);
    const parsed = JSON.parse(text) as { metadata: unknown; items: Array<{ metadata: { name: string; resourceVersion: string }; data: { i: string } }> };
    expect(parsed.metadata).toEqual(envelope.metadata);
    expect(parsed.items.map((item) => [item.metadata.name, item.metadata.resourceVersion, item.data.i])).toEqual(
      rawItems.map((_, i) => [`cm-${i}`, String(100 + i), String(i)]),
    );
  });
});
