import { isValidSysctlName, validateSysctls } from './sysctls.js';
import { validatePodSpec } from './validation.js';

// Cases from upstream's TestValidateSysctls and the conformance "should reject invalid sysctls".
describe('isValidSysctlName', () => {
  test.each(['a.b.c.d', 'a', 'a_b', 'a-b', 'abc', 'abc.def', 'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range'])('%s is valid', (name) => {
    expect(isValidSysctlName(name)).toBe(true);
  });
  test.each(['', '*', 'ä', 'a_', '_', '__', '_a', '_a._b', '-', '.', 'a.', '.a', 'a.b.', 'a*.b', 'a*b', '*a', 'a.*', 'Abc', 'foo-', 'bar..', `${'a'.repeat(254)}`])(
    '%s is invalid',
    (name) => {
      expect(isValidSysctlName(name)).toBe(false);
    },
  );
  test('253 characters is the longest name', () => {
    expect(isValidSysctlName('a'.repeat(253))).toBe(true);
  });
});

describe('validateSysctls', () => {
  test('missing names are required, bad ones invalid with upstream message', () => {
    const errs = validateSysctls([{ name: '' }, { value: '1' }, { name: 'foo-', value: 'bar' }, { name: 'kernel.shmmax', value: '1' }], 'spec.securityContext.sysctls');
    expect(errs.map((e) => [e.type, e.field])).toEqual([
      ['FieldValueRequired', 'spec.securityContext.sysctls[0].name'],
      ['FieldValueRequired', 'spec.securityContext.sysctls[1].name'],
      ['FieldValueInvalid', 'spec.securityContext.sysctls[2].name'],
    ]);
    expect(errs[2]?.detail).toBe('must have at most 253 characters and match regex ([a-z0-9]([-_a-z0-9]*[a-z0-9])?\\.)*[a-z0-9]([-_a-z0-9]*[a-z0-9])?');
  });

  test('pod specs reject the conformance spec bad names, keep the good ones', () => {
    const spec = {
      containers: [{ name: 'c', image: 'busybox' }],
      restartPolicy: 'Never',
      securityContext: {
        sysctls: [
          { name: 'foo-', value: 'bar' },
          { name: 'kernel.shmmax', value: '100000000' },
          { name: 'safe-and-unsafe', value: '100000000' },
          { name: 'bar..', value: '42' },
        ],
      },
    };
    const errs = validatePodSpec(spec, 'spec', { requireImage: true });
    expect(errs.map((e) => `${e.field}=${String(e.badValue)}`)).toEqual(['spec.securityContext.sysctls[0].name=foo-', 'spec.securityContext.sysctls[3].name=bar..']);
  });
});
