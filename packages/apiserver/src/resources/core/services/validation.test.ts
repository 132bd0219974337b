import { fieldErrorMessage } from '@cluster/apimachinery';
import { carryAllocatedValues, defaultService } from './defaults.js';
import type { Service } from './types.js';
import { validateService, validateServiceUpdate } from './validation.js';

const svc = (spec: Service['spec'], name = 'web'): Service => {
  const s: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', resourceVersion: '5' }, spec };
  defaultService(s);
  return s;
};
const messages = (s: Service) => validateService(s).map(fieldErrorMessage);

describe('Service defaults', () => {
  test('a ClusterIP service gets upstream defaults', () => {
    expect(svc({ ports: [{ port: 80 }] }).spec).toEqual({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
  });

  test('NodePort and LoadBalancer get externalTrafficPolicy, LoadBalancer allocateLoadBalancerNodePorts', () => {
    expect(svc({ type: 'NodePort', ports: [{ port: 80 }] }).spec?.externalTrafficPolicy).toBe('Cluster');
    const lb = svc({ type: 'LoadBalancer', ports: [{ port: 80, targetPort: 'http' }] }).spec;
    expect(lb?.allocateLoadBalancerNodePorts).toBe(true);
    expect(lb?.ports?.[0]?.targetPort).toBe('http');
  });

  test('ClientIP affinity gets the 3 h timeout', () => {
    expect(svc({ sessionAffinity: 'ClientIP', ports: [{ port: 80 }] }).spec?.['sessionAffinityConfig']).toEqual({ clientIP: { timeoutSeconds: 10800 } });
    expect(svc({ ports: [{ port: 80 }] }).spec?.['sessionAffinityConfig']).toBeUndefined();
  });

  test('ExternalName gets no IP families', () => {
    const spec = svc({ type: 'ExternalName', externalName: 'example.com' }).spec;
    expect(spec?.ipFamilies).toBeUndefined();
    expect(spec?.internalTrafficPolicy).toBeUndefined();
  });
});

describe('Service validation', () => {
  test.each<[string, Service['spec'], string[]]>([
    ['a plain service', { ports: [{ port: 80 }] }, []],
    ['headless without ports', { clusterIP: 'None', selector: { app: 'x' } }, []],
    ['ExternalName', { type: 'ExternalName', externalName: 'db.example.com' }, []],
    ['no ports', {}, ['spec.ports: Required value']],
    ['unknown type', { type: 'Foo', ports: [{ port: 80 }] }, ['spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']],
    [
      'two unnamed ports',
      { ports: [{ port: 80 }, { port: 81 }] },
      ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value'],
    ],
    ['duplicate port names', { ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81 }] }, ['spec.ports[1].name: Duplicate value: "a"']],
    ['port out of range', { ports: [{ port: 70000, targetPort: 80 }] }, ['spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive']],
    ['bad protocol', { ports: [{ port: 80, protocol: 'ICMP' }] }, ['spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"']],
    ['nodePort on ClusterIP', { ports: [{ port: 80, nodePort: 30001 }] }, ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]],
    ['bad clusterIP', { clusterIP: 'abc', ports: [{ port: 80 }] }, ['spec.clusterIPs[0]: Invalid value: "abc": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ['IPv6 clusterIP', { clusterIP: 'fd00::1', ports: [{ port: 80 }] }, ['spec.clusterIPs[0]: Invalid value: "fd00::1": IPv6 is not configured on this cluster']],
    [
      'dual stack required',
      { ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] },
      ['spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services'],
    ],
    ['IPv6 family', { ipFamilies: ['IPv6'], ports: [{ port: 80 }] }, ['spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster']],
    ['headless NodePort', { type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] }, ['spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for NodePort services']],
    ['ExternalName without a name', { type: 'ExternalName' }, ['spec.externalName: Required value']],
    ['ExternalName with a cluster IP', { type: 'ExternalName', externalName: 'a.b', clusterIP: '10.0.0.5' }, ['spec.clusterIPs: Forbidden: may not be set for ExternalName services']],
    [
      'the same node port twice for one protocol',
      { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30001 }, { name: 'b', port: 81, nodePort: 30001 }, { name: 'c', port: 81, protocol: 'UDP', nodePort: 30001 }] },
      ['spec.ports[1].nodePort: Duplicate value: 30001'],
    ],
    [
      'healthCheckNodePort without LoadBalancer/Local',
      { type: 'NodePort', healthCheckNodePort: 30005, ports: [{ port: 80 }] },
      ["spec.healthCheckNodePort: Invalid value: 30005: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"],
    ],
    ['bad session affinity', { sessionAffinity: 'Sticky', ports: [{ port: 80 }] }, ['spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"']],
    ['externalTrafficPolicy on ClusterIP', { externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }, ["spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set when `type` is 'NodePort' or 'LoadBalancer'"]],
    ['routable external IPs, IPv4 and IPv6', { externalIPs: ['192.0.2.10', '2001:db8::10'], ports: [{ port: 80 }] }, []],
    ['an external IP that is not an IP', { externalIPs: ['1.2.3'], ports: [{ port: 80 }] }, ['spec.externalIPs[0]: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    [
      'special external IPs (upstream ValidateNonSpecialIP)',
      { externalIPs: ['0.0.0.0', '127.0.0.1', '169.254.1.1', '224.0.0.5', '::1', 'fe80::1', 'ff02::1'], ports: [{ port: 80 }] },
      [
        'spec.externalIPs[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
        'spec.externalIPs[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        'spec.externalIPs[2]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
        'spec.externalIPs[3]: Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
        'spec.externalIPs[4]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        'spec.externalIPs[5]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
        'spec.externalIPs[6]: Invalid value: "ff02::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
      ],
    ],
    ['bad targetPort name', { ports: [{ port: 80, targetPort: 'Not_A_Name' }] }, expect.arrayContaining([expect.stringMatching(/^spec\.ports\[0\]\.targetPort: Invalid value: "Not_A_Name"/)]) as unknown as string[]],
  ])('%s', (_name, spec, expected) => {
    expect(messages(svc(spec))).toEqual(expected);
  });

  test('service names are DNS-1035 labels', () => {
    expect(messages(svc({ ports: [{ port: 80 }] }, '1abc'))[0]).toMatch(/^metadata\.name: Invalid value: "1abc": a DNS-1035 label must consist of/);
  });

  test('the cluster IP may not change, except to or from ExternalName', () => {
    const old = svc({ clusterIP: '10.0.0.5', ports: [{ port: 80 }] });
    const changed = svc({ clusterIP: '10.0.0.6', clusterIPs: ['10.0.0.5'], ports: [{ port: 80 }] });
    carryAllocatedValues(changed, old);
    expect(validateServiceUpdate(changed, old).map(fieldErrorMessage)).toEqual(['spec.clusterIPs[0]: Invalid value: "10.0.0.6": may not change once set']);
    const external = svc({ type: 'ExternalName', externalName: 'a.example.com', clusterIP: '10.0.0.5', ports: [{ port: 80 }] });
    carryAllocatedValues(external, old);
    expect(external.spec?.clusterIP).toBeUndefined();
    expect(validateServiceUpdate(external, old)).toEqual([]);
  });

  test('an update that omits the allocated values keeps them', () => {
    const old = svc({ type: 'NodePort', clusterIP: '10.0.0.5', ports: [{ port: 80, nodePort: 30080 }, { name: 'b', port: 81, nodePort: 30081 }] });
    const replaced: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } };
    carryAllocatedValues(replaced, old);
    defaultService(replaced);
    expect(replaced.spec?.clusterIP).toBe('10.0.0.5');
    expect(replaced.spec?.clusterIPs).toEqual(['10.0.0.5']);
    expect(replaced.spec?.ports?.[0]?.nodePort).toBe(30080);
  });

  test('a change from NodePort to ClusterIP drops the node ports', () => {
    const old = svc({ type: 'NodePort', clusterIP: '10.0.0.5', ports: [{ port: 80, nodePort: 30080 }] });
    const next = svc({ type: 'ClusterIP', clusterIP: '10.0.0.5', ports: [{ port: 80, nodePort: 30080 }] });
    carryAllocatedValues(next, old);
    expect(next.spec?.ports?.[0]?.nodePort).toBeUndefined();
  });
});
