import type { Pod } from '../pod-spec/types.js';
import { podStrategy } from './strategy.js';

// Upstream validation_test.go's mirror-pod annotation cases, through every way a pod is updated.
const D = 'example.org';
const KEY = `${D}/config.mirror`;
const s = podStrategy(D);
const pod = (annotations: Record<string, string> | undefined, nodeName = 'n1'): Pod =>
  ({ metadata: { name: 'p', namespace: 'ns', resourceVersion: '1', ...(annotations ? { annotations } : {}) }, spec: { nodeName, containers: [{ name: 'c', image: 'i' }] } }) as Pod;
// Only the annotation errors: the pods here are not defaulted, which other rules would report.
const fields = (errs: Array<{ field: string; detail?: string }>) => errs.filter((e) => e.field.startsWith('metadata.annotations')).map((e) => `${e.field}: ${e.detail ?? ''}`);

describe('mirror pod annotation', () => {
  test('a mirror pod must be bound to a node', () => {
    expect(fields(s.validate(pod({ [KEY]: 'h' }, '')))).toContain(`metadata.annotations[${KEY}]: must set spec.nodeName if mirror pod annotation is set`);
    expect(fields(s.validate(pod({ [KEY]: 'h' })))).toEqual([]);
  });

  const updates = {
    update: (n: Pod, o: Pod) => s.validateUpdate(n, o),
    status: (n: Pod, o: Pod) => s.subresources.status.validateUpdate!(n, o),
    ephemeralcontainers: (n: Pod, o: Pod) => s.subresources.ephemeralcontainers.validateUpdate!(n, o),
  };
  test.each(Object.keys(updates) as Array<keyof typeof updates>)('%s may not add, drop or change it', (how) => {
    const v = updates[how];
    expect(fields(v(pod(undefined), pod({ [KEY]: 'h' })))).toContain(`metadata.annotations[${KEY}]: may not remove or update mirror pod annotation`);
    expect(fields(v(pod({ [KEY]: 'other' }), pod({ [KEY]: 'h' })))).toContain(`metadata.annotations[${KEY}]: may not remove or update mirror pod annotation`);
    expect(fields(v(pod({ [KEY]: 'h' }), pod(undefined)))).toContain(`metadata.annotations[${KEY}]: may not add mirror pod annotation`);
    expect(fields(v(pod({ [KEY]: 'h', other: 'x' }), pod({ [KEY]: 'h' })))).toEqual([]);
    // Another domain's key is just an annotation.
    expect(fields(v(pod({ 'kubernetes.io/config.mirror': 'h' }), pod(undefined)))).toEqual([]);
  });
});
