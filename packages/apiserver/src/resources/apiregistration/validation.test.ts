import type { FieldErrorList } from '@cluster/apimachinery';
import { apiServiceStrategy } from './strategy.js';
import type { ApiService } from './types.js';

const brief = (errs: FieldErrorList) => errs.map((e) => `${e.field} ${e.type}`);
const ca = Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64');

function svc(name: string, spec: ApiService['spec']): ApiService {
  return { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec };
}
const remote = { groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'ns', name: 'api', port: 443 } };

describe('APIService validation (upstream ValidateAPIService)', () => {
  test.each<[string, ApiService, string[]]>([
    ['a remote APIService', svc('v1.example.io', { group: 'example.io', version: 'v1', ...remote, caBundle: ca }), []],
    ['the core group as v1.', svc('v1.', { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }), []],
    ['a name other than version.group', svc('v1.other.io', { group: 'example.io', version: 'v1', ...remote }), ['metadata.name FieldValueInvalid']],
    ['an empty group with a version other than v1', svc('v2.', { group: '', version: 'v2', groupPriorityMinimum: 1, versionPriority: 1 }), ['spec.group FieldValueRequired']],
    ['a group that is not a subdomain', svc('v1.Bad_Group', { group: 'Bad_Group', version: 'v1', ...remote }), ['spec.group FieldValueInvalid']],
    ['a version that is not a DNS-1035 label', svc('1v.example.io', { group: 'example.io', version: '1v', ...remote }), ['spec.version FieldValueInvalid']],
    ['no priorities', svc('v1.example.io', { group: 'example.io', version: 'v1', service: remote.service }), ['spec.groupPriorityMinimum FieldValueInvalid', 'spec.versionPriority FieldValueInvalid']],
    ['priorities over the bounds', svc('v1.example.io', { ...remote, group: 'example.io', version: 'v1', groupPriorityMinimum: 20001, versionPriority: 1001 }), ['spec.groupPriorityMinimum FieldValueInvalid', 'spec.versionPriority FieldValueInvalid']],
    ['priorities at the bounds', svc('v1.example.io', { ...remote, group: 'example.io', version: 'v1', groupPriorityMinimum: 20000, versionPriority: 1000 }), []],
    ['negative priorities', svc('v1.example.io', { ...remote, group: 'example.io', version: 'v1', groupPriorityMinimum: -1, versionPriority: 0 }), ['spec.groupPriorityMinimum FieldValueInvalid', 'spec.versionPriority FieldValueInvalid']],
    ['caBundle with insecureSkipTLSVerify', svc('v1.example.io', { group: 'example.io', version: 'v1', ...remote, caBundle: ca, insecureSkipTLSVerify: true }), ['spec.insecureSkipTLSVerify FieldValueInvalid']],
    ['a local APIService with a caBundle', svc('v1.example.io', { group: 'example.io', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, caBundle: ca }), ['spec.caBundle FieldValueInvalid']],
    ['a local APIService skipping TLS checks', svc('v1.example.io', { group: 'example.io', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, insecureSkipTLSVerify: true }), ['spec.insecureSkipTLSVerify FieldValueInvalid']],
    ['a service without namespace and name', svc('v1.example.io', { ...remote, group: 'example.io', version: 'v1', service: {} }), ['spec.service.namespace FieldValueRequired', 'spec.service.name FieldValueRequired']],
    ['a service port out of range', svc('v1.example.io', { ...remote, group: 'example.io', version: 'v1', service: { namespace: 'ns', name: 'api', port: 70000 } }), ['spec.service.port FieldValueInvalid']],
  ])('%s', (_name, obj, expected) => {
    expect(brief(apiServiceStrategy.validate(obj))).toEqual(expected);
  });

  test('the service port defaults to 443 and the status is cleared on create', () => {
    const obj = svc('v1.example.io', { group: 'example.io', version: 'v1', ...remote, service: { namespace: 'ns', name: 'api' } });
    obj.status = { conditions: [{ type: 'Available', status: 'True' }] };
    apiServiceStrategy.prepareForCreate(obj);
    expect(obj.spec?.service?.port).toBe(443);
    expect(obj.status).toEqual({});
  });

  test('a status condition must be True, False or Unknown', () => {
    const obj = svc('v1.example.io', { group: 'example.io', version: 'v1', ...remote });
    obj.metadata.resourceVersion = '1';
    const next = structuredClone(obj);
    next.status = { conditions: [{ type: 'Available', status: 'Maybe' }] };
    expect(brief(apiServiceStrategy.subresources.status.validateUpdate(next, obj))).toEqual(['status.conditions[0].status FieldValueNotSupported']);
  });
});
