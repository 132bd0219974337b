import { StatusError } from '@cluster/apimachinery';
import { negotiate } from './negotiate.js';
import { NegotiationCache } from './negotiation-cache.js';

const META = 'meta.k8s.io';
const TABLE = `application/json;as=Table;v=v1;g=${META}`;

describe('NegotiationCache', () => {
  test.each<[string, boolean, boolean, boolean]>([
    ['', false, true, false],
    ['application/json', true, true, false],
    ['application/json', true, true, true],
    ['application/yaml', true, true, false],
    ['application/vnd.kubernetes.protobuf', true, true, false],
    ['application/vnd.kubernetes.protobuf, application/json', false, true, false],
    [TABLE, true, true, false],
    [`${TABLE}, application/json`, true, false, false],
  ])('Accept %p (protobuf %p, table %p, pretty %p): negotiate()\'s answer, the first time and again', (accept, protobufOk, tableOk, pretty) => {
    const cache = new NegotiationCache(META);
    const want = negotiate(accept, { metaGroup: META, protobufOk, tableOk, pretty });
    expect(cache.negotiate(accept, protobufOk, tableOk, pretty)).toEqual(want);
    expect(cache.negotiate(accept, protobufOk, tableOk, pretty)).toEqual(want);
  });

  test('a different Accept header or endpoint never gets another one\'s answer', () => {
    const cache = new NegotiationCache(META);
    expect(cache.negotiate('application/json', true, true, false).encoding).toBe('json');
    expect(cache.negotiate('application/yaml', true, true, false).encoding).toBe('yaml');
    expect(cache.negotiate('application/vnd.kubernetes.protobuf, application/json', true, true, false).encoding).toBe('protobuf');
    // The same header where Protobuf is not served (a custom resource): JSON.
    expect(cache.negotiate('application/vnd.kubernetes.protobuf, application/json', false, true, false).encoding).toBe('json');
    expect(cache.negotiate(TABLE, true, true, false).as).toBe('Table');
    // Not a read: no Table view, so nothing fits.
    expect(() => cache.negotiate(TABLE, true, false, false)).toThrow(StatusError);
    expect(cache.negotiate('application/json', true, true, true).pretty).toBe(true);
    expect(cache.negotiate('application/json', true, true, false).pretty).toBe(false);
  });

  test('a 406 is thrown every time, and answers are frozen', () => {
    const cache = new NegotiationCache(META);
    expect(() => cache.negotiate('text/html', true, true, false)).toThrow(StatusError);
    expect(() => cache.negotiate('text/html', true, true, false)).toThrow(StatusError);
    expect(Object.isFrozen(cache.negotiate('application/json', true, true, false))).toBe(true);
  });

  test('stays bounded whatever headers clients send', () => {
    const cache = new NegotiationCache(META);
    for (let i = 0; i < 1000; i++) cache.negotiate(`application/json;x=${i}`, true, true, false);
    expect((cache as unknown as { kept: Map<string, unknown> }).kept.size).toBeLessThanOrEqual(256);
  });
});
