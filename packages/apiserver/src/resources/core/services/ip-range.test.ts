import { firstIP, formatIPv4, offsetOf, parseIPv4, parseIPv4Range, parsePortRange } from './ip-range.js';

describe('IPv4 ranges', () => {
  test.each([
    ['10.0.0.1', 0x0a000001],
    ['255.255.255.255', 0xffffffff],
    ['0.0.0.0', 0],
    ['10.0.0', undefined],
    ['10.0.0.256', undefined],
    ['10.0.0.01', undefined],
    ['fd00::1', undefined],
    ['a.b.c.d', undefined],
  ])('parseIPv4(%s)', (text, n) => {
    expect(parseIPv4(text)).toBe(n);
    if (n !== undefined) expect(formatIPv4(n)).toBe(text);
  });

  test('the default range hands out .1 to .254 and starts with the kubernetes service IP', () => {
    const r = parseIPv4Range('10.0.0.0/24');
    expect(r.size).toBe(256);
    expect(firstIP(r)).toBe('10.0.0.1');
    expect(offsetOf(r, '10.0.0.0')).toBeUndefined();
    expect(offsetOf(r, '10.0.0.255')).toBeUndefined();
    expect(offsetOf(r, '10.0.0.254')).toBe(254);
    expect(offsetOf(r, '10.0.1.1')).toBeUndefined();
  });

  test.each(['10.0.0.1/24', 'fd00::/108', '10.0.0.0/33', '10.0.0.0/31', 'x', '10.0.0.0/24,fd00::/108', '10.0.0.0/8'])('parseIPv4Range(%s) throws', (cidr) => {
    expect(() => parseIPv4Range(cidr)).toThrow(cidr);
  });

  test.each([
    ['30000-32767', 30000, 2768],
    ['8080', 8080, 1],
  ])('parsePortRange(%s)', (text, base, size) => {
    expect(parsePortRange(text)).toMatchObject({ base, size });
  });

  test.each(['0-10', '100-50', '1-70000', 'a-b'])('parsePortRange(%s) throws', (text) => {
    expect(() => parsePortRange(text)).toThrow(text);
  });
});
