import { podQosClass } from './qos.js';

describe('podQosClass', () => {
  test.each([
    ['no resources', [{}], 'BestEffort'],
    ['zero requests', [{ requests: { cpu: '0' } }], 'BestEffort'],
    ['requests only', [{ requests: { cpu: '100m' } }], 'Burstable'],
    ['limits equal requests for cpu and memory', [{ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } }], 'Guaranteed'],
    ['limits only (requests default to limits)', [{ limits: { cpu: '1', memory: '1Gi' } }], 'Guaranteed'],
    ['limits without memory', [{ limits: { cpu: '1' } }], 'Burstable'],
    ['one guaranteed, one best-effort container', [{ limits: { cpu: '1', memory: '1Gi' } }, {}], 'Burstable'],
  ])('%s -> %s', (_name, resources, expected) => {
    const containers = resources.map((r, i) => ({ name: `c${i}`, resources: r as { limits?: Record<string, string>; requests?: Record<string, string> } }));
    expect(podQosClass({ containers })).toBe(expected);
  });
});
