import { danglingRefs, definitionClosure, forEachRef, mapRefs } from './refs.js';
import type { JsonObject } from '../meta/types.js';

const defs: Record<string, JsonObject> = {
  A: { properties: { b: { $ref: '#/definitions/B' }, list: { items: { $ref: '#/definitions/C' } } } },
  B: { properties: { a: { $ref: '#/definitions/A' } } },
  C: { type: 'string' },
  D: { type: 'string' },
};

describe('refs', () => {
  test('forEachRef visits refs in arrays and objects with their path', () => {
    const seen: string[] = [];
    forEachRef(defs['A'], (ref, path) => seen.push(`${path}=${ref}`));
    expect(seen).toEqual(['properties.b=#/definitions/B', 'properties.list.items=#/definitions/C']);
  });

  test('mapRefs rewrites refs and copies', () => {
    const out = mapRefs(defs['A'] as JsonObject, (r) => r.replace('#/definitions/', '#/components/schemas/')) as JsonObject;
    expect(JSON.stringify(out)).toContain('#/components/schemas/B');
    expect(JSON.stringify(defs['A'])).toContain('#/definitions/B');
  });

  test('definitionClosure follows cycles once and skips unreachable definitions', () => {
    expect(definitionClosure(['A'], defs)).toEqual(['A', 'B', 'C']);
    expect(definitionClosure(['Missing'], defs)).toEqual(['Missing']);
  });

  test('danglingRefs reports unknown targets and foreign prefixes', () => {
    expect(danglingRefs({ definitions: defs }, '#/definitions/')).toEqual([]);
    const bad = { definitions: { X: { $ref: '#/definitions/Nope' }, Y: { $ref: '#/components/schemas/X' } } };
    expect(danglingRefs(bad, '#/definitions/')).toEqual(['definitions.X: #/definitions/Nope', 'definitions.Y: #/components/schemas/X']);
  });
});
