import { ipFamily, isEndpointIP, validateNonSpecialIP } from './special-ip.js';

// Go's net.IP predicates behind upstream's ValidateNonSpecialIP, case by case.
describe('validateNonSpecialIP', () => {
  test.each([
    ['10.0.0.1', []],
    ['192.0.2.2', []],
    ['fd00::2', []],
    ['2001:db8::ffff', []],
    ['126.255.255.255', []],
    ['128.0.0.1', []],
    ['169.253.255.255', []],
    ['224.0.1.1', []],
    ['fec0::1', []],
    ['ff05::1', []],
    ['0.0.0.0', ['may not be unspecified (0.0.0.0)']],
    ['::', ['may not be unspecified (::)']],
    ['127.0.0.1', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['127.255.255.254', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['::1', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['0:0:0:0:0:0:0:1', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['::ffff:127.0.0.1', ['may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['169.254.169.254', ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
    ['fe80::1', ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
    ['febf::1', ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
    ['224.0.0.251', ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']],
    ['ff02::1', ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']],
    ['ff12::1', ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']],
    ['nope', ['must be a valid IP address']],
    ['fe80::1%eth0', ['must be a valid IP address']],
    ['010.0.0.1', ['must be a valid IP address']],
  ])('%s', (ip, messages) => {
    expect(validateNonSpecialIP(ip, 'ip').map((e) => e.detail)).toEqual(messages);
    expect(isEndpointIP(ip)).toBe(messages.length === 0);
  });

  test('families', () => {
    expect([ipFamily('10.0.0.1'), ipFamily('fd00::1'), ipFamily('x'), ipFamily('1.2.3')]).toEqual([4, 6, 0, 0]);
  });
});
