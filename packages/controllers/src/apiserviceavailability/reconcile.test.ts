import { discoveryVerdict, planStatus, reachability, type ApiService, type Endpoints, type Service } from './reconcile.js';

const apiService = (service?: { namespace: string; name: string; port?: number }): ApiService => ({
  metadata: { name: 'v1.example.io', resourceVersion: '5' },
  spec: { group: 'example.io', version: 'v1', ...(service ? { service } : {}) },
});
const ref = { namespace: 'ext', name: 'api', port: 443 };
const service: Service = { metadata: { name: 'api', namespace: 'ext' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } };
const endpoints = (subsets: Endpoints['subsets']): Endpoints => ({ metadata: { name: 'api', namespace: 'ext' }, subsets });

describe('reachability (upstream available_controller checks)', () => {
  test.each<[string, ApiService, Service | undefined, Endpoints | undefined, unknown]>([
    ['a local APIService', apiService(), undefined, undefined, { verdict: { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' } }],
    ['no Service', apiService(ref), undefined, undefined, { verdict: expect.objectContaining({ status: 'False', reason: 'ServiceNotFound', message: 'service/api in "ext" is not present' }) }],
    ['a Service without the port', apiService({ ...ref, port: 9443 }), service, undefined, { verdict: expect.objectContaining({ status: 'False', reason: 'ServicePortError' }) }],
    ['no Endpoints', apiService(ref), service, undefined, { verdict: expect.objectContaining({ status: 'False', reason: 'EndpointsNotFound', message: 'cannot find endpoints for service/api in "ext"' }) }],
    ['Endpoints without addresses', apiService(ref), service, endpoints([{ notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'https', port: 8443 }] } as never]), { verdict: expect.objectContaining({ reason: 'MissingEndpoints' }) }],
    ['Endpoints with another port name', apiService(ref), service, endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 8080 }] }]), { verdict: expect.objectContaining({ reason: 'MissingEndpoints' }) }],
    ['a ready address on the named port', apiService(ref), service, endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'https', port: 8443 }] }]), { endpoint: { host: '10.0.0.1', port: 8443, serverName: 'api.ext.svc' } }],
  ])('%s', (_name, svc, s, e, want) => {
    expect(reachability(svc, s, e)).toEqual(want);
  });
});

describe('discoveryVerdict', () => {
  test('passed and failed checks', () => {
    expect(discoveryVerdict('/apis/example.io/v1', undefined)).toEqual({ type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' });
    expect(discoveryVerdict('/apis/example.io/v1', 'HTTP 500')).toMatchObject({ status: 'False', reason: 'FailedDiscoveryCheck', message: 'failing or missing response from /apis/example.io/v1: HTTP 500' });
  });
});

describe('planStatus', () => {
  const passed = discoveryVerdict('/p', undefined);
  test('a first condition is written with the transition time', () => {
    expect(planStatus(apiService(ref), passed, 'T1')?.status?.conditions).toEqual([{ ...passed, lastTransitionTime: 'T1' }]);
  });
  test('the same condition writes nothing', () => {
    const svc = { ...apiService(ref), status: { conditions: [{ ...passed, lastTransitionTime: 'T1' }] } };
    expect(planStatus(svc, passed, 'T2')).toBeUndefined();
  });
  test('a new message with the same status keeps the transition time; a new status moves it', () => {
    const failed = discoveryVerdict('/p', 'a');
    const svc = { ...apiService(ref), status: { conditions: [{ ...failed, lastTransitionTime: 'T1' }] } };
    expect(planStatus(svc, discoveryVerdict('/p', 'b'), 'T2')?.status?.conditions?.[0]?.lastTransitionTime).toBe('T1');
    expect(planStatus(svc, passed, 'T2')?.status?.conditions?.[0]).toEqual({ ...passed, lastTransitionTime: 'T2' });
  });
});
