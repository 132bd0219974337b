import type { JsonValue } from '../meta/types.js';
import { evaluateSimpleJsonPath, parseSimpleJsonPath } from './json-path.js';

const obj: JsonValue = {
  metadata: { name: 'n', labels: { 'a.b/c': 'x' } },
  spec: { replicas: 3, ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] },
  status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }] },
};

describe('simple JSON paths', () => {
  test.each<[string, JsonValue[]]>([
    ['.spec.replicas', [3]],
    ['.spec.ports[1].port', [2]],
    ['.spec.ports[*].name', ['a', 'b']],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    [".metadata.labels['a.b/c']", ['x']],
    ['.spec.missing', []],
    ['.spec.ports[5]', []],
    ['{.metadata.name}', ['n']],
  ])('%s', (path, expected) => {
    const steps = parseSimpleJsonPath(path);
    expect(steps).toBeDefined();
    expect(evaluateSimpleJsonPath(obj, steps!)).toEqual(expected);
  });

  test.each(['spec', '.spec..x', '.spec[', '.a[?(@.x>1)]'])('refuses %s', (path) => {
    expect(parseSimpleJsonPath(path)).toBeUndefined();
  });
});
