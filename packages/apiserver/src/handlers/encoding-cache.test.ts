import { EncodingCache } from './encoding-cache.js';
import { jsonListStream } from './list-stream.js';

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
});

describe('jsonListStream', () => {
  test.each([0, 1, 255, 256, 257, 1000])('a list of %d items streams as the same JSON document', async (n) => {
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
});
