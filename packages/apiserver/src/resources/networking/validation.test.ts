import type { FieldErrorList } from '@cluster/apimachinery';
import { ingressClassStrategy } from './ingressclasses/strategy.js';
import { ingressStrategy } from './ingresses/strategy.js';
import { networkPolicyStrategy } from './networkpolicies/strategy.js';
import type { Ingress, IngressClass, NetworkPolicy } from './types.js';

const brief = (errs: FieldErrorList) => errs.map((e) => `${e.field} ${e.type}`);
const svc = (name = 'web', port: { number?: number; name?: string } = { number: 80 }) => ({ service: { name, port } });
const ingress = (spec: Ingress['spec'], annotations?: Record<string, string>): Ingress => ({
  metadata: { name: 'i', namespace: 'default', ...(annotations ? { annotations } : {}) },
  spec,
});
const withPath = (path: string | undefined, pathType: string | undefined) =>
  ingress({ rules: [{ host: 'a.example.com', http: { paths: [{ ...(path !== undefined ? { path } : {}), ...(pathType ? { pathType } : {}), backend: svc() }] } }] });

describe('Ingress path types (upstream validateHTTPIngressPath)', () => {
  test.each([
    ['Prefix /', '/', 'Prefix', []],
    ['Exact /api', '/api', 'Exact', []],
    ['ImplementationSpecific with no path', undefined, 'ImplementationSpecific', []],
    ['ImplementationSpecific with a regex-like path', '/.*', 'ImplementationSpecific', []],
    ['no pathType', '/', undefined, ['spec.rules[0].http.paths[0].pathType FieldValueRequired']],
    ['unknown pathType', '/', 'Regex', ['spec.rules[0].http.paths[0].pathType FieldValueNotSupported']],
    ['Prefix relative path', 'api', 'Prefix', ['spec.rules[0].http.paths[0].path FieldValueInvalid']],
    ['Exact with //', '/a//b', 'Exact', ['spec.rules[0].http.paths[0].path FieldValueInvalid']],
    ['Prefix ending in /..', '/a/..', 'Prefix', ['spec.rules[0].http.paths[0].path FieldValueInvalid']],
    ['Exact with %2F', '/a%2Fb', 'Exact', ['spec.rules[0].http.paths[0].path FieldValueInvalid']],
    ['ImplementationSpecific relative', 'api', 'ImplementationSpecific', ['spec.rules[0].http.paths[0].path FieldValueInvalid']],
  ])('%s', (_name, path, pathType, expected) => {
    expect(brief(ingressStrategy.validate(withPath(path, pathType)))).toEqual(expected);
  });
});

describe('Ingress spec', () => {
  test.each([
    ['default backend only', { defaultBackend: svc() }, []],
    ['neither rules nor default backend', {}, ['spec FieldValueInvalid']],
    ['both port name and number', { defaultBackend: svc('web', { name: 'http', number: 80 }) }, ['spec.defaultBackend FieldValueInvalid']],
    ['no port', { defaultBackend: svc('web', {}) }, ['spec.defaultBackend FieldValueRequired']],
    ['bad port number', { defaultBackend: svc('web', { number: 70000 }) }, ['spec.defaultBackend.service.port.number FieldValueInvalid']],
    ['bad service name', { defaultBackend: svc('1web') }, ['spec.defaultBackend.service.name FieldValueInvalid']],
    ['both service and resource', { defaultBackend: { ...svc(), resource: { kind: 'Bucket', name: 'b' } } }, ['spec.defaultBackend FieldValueInvalid']],
    ['resource without kind', { defaultBackend: { resource: { name: 'b' } } }, ['spec.defaultBackend.resource.kind FieldValueRequired']],
    ['an IP as host', { rules: [{ host: '10.0.0.1' }] }, ['spec.rules[0].host FieldValueInvalid']],
    ['a wildcard host', { rules: [{ host: '*.example.com' }] }, []],
    ['a bad wildcard host', { rules: [{ host: 'a.*.example.com' }] }, ['spec.rules[0].host FieldValueInvalid']],
    ['http without paths', { rules: [{ host: 'a.example.com', http: { paths: [] } }] }, ['spec.rules[0].http.paths FieldValueRequired']],
    ['bad tls host', { defaultBackend: svc(), tls: [{ hosts: ['A_B'] }] }, ['spec.tls[0].hosts[0] FieldValueInvalid']],
    ['bad class name', { defaultBackend: svc(), ingressClassName: 'Nginx!' }, ['spec.ingressClassName FieldValueInvalid']],
  ])('%s', (_name, spec, expected) => {
    expect(brief(ingressStrategy.validate(ingress(spec as Ingress['spec'])))).toEqual(expected);
  });

  test('the class annotation draws upstream\'s deprecation warning on create', () => {
    const annotated = ingress({ defaultBackend: svc() }, { 'kubernetes.io/ingress.class': 'nginx' });
    expect(ingressStrategy.warnings(annotated)).toEqual([`annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`]);
    expect(ingressStrategy.warnings(annotated, annotated)).toEqual([]);
    expect(ingressStrategy.warnings(ingress({ defaultBackend: svc() }))).toEqual([]);
  });

  test('the class annotation and spec.ingressClassName are not both set', () => {
    const errs = ingressStrategy.validate(ingress({ defaultBackend: svc(), ingressClassName: 'nginx' }, { 'kubernetes.io/ingress.class': 'nginx' }));
    expect(brief(errs)).toEqual(['annotations.kubernetes.io/ingress.class FieldValueInvalid']);
  });

  test('an update keeps the invalid secret name the old object already had', () => {
    const old = ingress({ defaultBackend: svc(), tls: [{ secretName: 'Bad_Name' }] });
    old.metadata.resourceVersion = '2';
    const next = structuredClone(old);
    expect(ingressStrategy.validateUpdate(next, old)).toEqual([]);
    expect(brief(ingressStrategy.validate(ingress({ defaultBackend: svc(), tls: [{ secretName: 'Bad_Name' }] })))).toEqual(['spec.tls[0].secretName FieldValueInvalid']);
  });

  test('table cells follow upstream printIngress', () => {
    const ing = ingress({ ingressClassName: 'nginx', tls: [{}], rules: ['a', 'b', 'c', 'd'].map((h) => ({ host: `${h}.example.com` })) });
    ing.status = { loadBalancer: { ingress: [{ ip: '10.0.0.5' }, { hostname: 'lb.example.com' }] } };
    expect(ingressStrategy.table.cells(ing).slice(0, 5)).toEqual(['i', 'nginx', 'a.example.com,b.example.com,c.example.com + 1 more...', '10.0.0.5,lb.example.com', '80, 443']);
  });
});

describe('IngressClass', () => {
  const ic = (spec: IngressClass['spec']): IngressClass => ({ metadata: { name: 'nginx' }, spec });
  test.each([
    ['a domain-prefixed controller', { controller: 'example.com/ingress' }, []],
    ['no controller', {}, ['spec.controller FieldValueRequired']],
    ['a controller without a path', { controller: 'example.com' }, ['spec.controller FieldValueInvalid']],
    ['parameters defaulted to Cluster scope', { controller: 'example.com/i', parameters: { kind: 'Cfg', name: 'p' } }, []],
    ['Namespace scope without namespace', { controller: 'example.com/i', parameters: { kind: 'Cfg', name: 'p', scope: 'Namespace' } }, ['spec.parameters.namespace FieldValueRequired']],
    ['Cluster scope with a namespace', { controller: 'example.com/i', parameters: { kind: 'Cfg', name: 'p', namespace: 'x' } }, ['spec.parameters.namespace FieldValueForbidden']],
    ['unknown scope', { controller: 'example.com/i', parameters: { kind: 'Cfg', name: 'p', scope: 'Galaxy' } }, ['spec.parameters.scope FieldValueNotSupported']],
  ])('%s', (_name, spec, expected) => {
    const obj = ic(spec);
    ingressClassStrategy.prepareForCreate(obj);
    expect(brief(ingressClassStrategy.validate(obj))).toEqual(expected);
  });

  test('the controller is immutable', () => {
    const old = ic({ controller: 'example.com/a' });
    old.metadata.resourceVersion = '1';
    const next = ic({ controller: 'example.com/b' });
    next.metadata.resourceVersion = '1';
    expect(brief(ingressClassStrategy.validateUpdate(next, old))).toEqual(['spec.controller FieldValueInvalid']);
  });
});

describe('NetworkPolicy', () => {
  const np = (spec: NetworkPolicy['spec']): NetworkPolicy => ({ metadata: { name: 'np', namespace: 'default' }, spec });
  test('defaults policyTypes and port protocols as upstream', () => {
    const obj = np({ egress: [{ ports: [{ port: 53 }] }] });
    networkPolicyStrategy.prepareForCreate(obj);
    expect(obj.spec).toEqual({ podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }], policyTypes: ['Ingress', 'Egress'] });
  });

  test.each([
    ['a port range', { ingress: [{ ports: [{ port: 8000, endPort: 9000 }] }] }, []],
    ['endPort below port', { ingress: [{ ports: [{ port: 9000, endPort: 8000 }] }] }, ['spec.ingress[0].ports[0].endPort FieldValueInvalid']],
    ['endPort with a named port', { ingress: [{ ports: [{ port: 'http', endPort: 8000 }] }] }, ['spec.ingress[0].ports[0].endPort FieldValueInvalid']],
    ['unknown protocol', { ingress: [{ ports: [{ protocol: 'ICMP', port: 1 }] }] }, ['spec.ingress[0].ports[0].protocol FieldValueNotSupported']],
    ['an empty peer', { ingress: [{ from: [{}] }] }, ['spec.ingress[0].from[0] FieldValueRequired']],
    ['ipBlock and a selector', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }] }, ['spec.egress[0].to[0] FieldValueForbidden']],
    ['a bad CIDR', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/33' } }] }] }, ['spec.egress[0].to[0].ipBlock.cidr FieldValueInvalid']],
    ['an except outside the CIDR', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16'] } }] }] }, ['spec.egress[0].to[0].ipBlock.except[0] FieldValueInvalid']],
    ['an IPv6 block with an except inside', { egress: [{ to: [{ ipBlock: { cidr: 'fd00::/8', except: ['fd00:1::/32'] } }] }] }, []],
    ['unknown policy type', { policyTypes: ['Sideways'] }, ['spec.policyTypes[0] FieldValueNotSupported']],
  ])('%s', (_name, spec, expected) => {
    const obj = np(spec as NetworkPolicy['spec']);
    networkPolicyStrategy.prepareForCreate(obj);
    expect(brief(networkPolicyStrategy.validate(obj))).toEqual(expected);
  });
});
