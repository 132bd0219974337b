import type { FieldErrorList } from '@cluster/apimachinery';
import { webhookConfigurationStrategy } from './strategy.js';
import type { Webhook, WebhookConfiguration } from './types.js';

const brief = (errs: FieldErrorList) => errs.map((e) => `${e.field} ${e.type}`);
const good = (): Webhook => ({
  name: 'deny.example.com',
  clientConfig: { url: 'https://127.0.0.1:8443/validate' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
});
const config = (...webhooks: Webhook[]): WebhookConfiguration => ({ metadata: { name: 'c' }, webhooks });
const validating = webhookConfigurationStrategy(false);
const mutating = webhookConfigurationStrategy(true);

describe('webhook configuration defaults', () => {
  test('upstream defaults are filled in', () => {
    const c = config({ ...good(), clientConfig: { service: { namespace: 'ns', name: 'svc' } } });
    mutating.prepareForCreate(c);
    expect(c.webhooks![0]).toMatchObject({
      failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {},
      reinvocationPolicy: 'Never', rules: [{ scope: '*' }], clientConfig: { service: { port: 443 } },
    });
    const v = config(good());
    validating.prepareForCreate(v);
    expect(v.webhooks![0]!.reinvocationPolicy).toBeUndefined();
  });
});

describe('webhook configuration validation', () => {
  test.each<[string, Partial<Webhook>, string[]]>([
    ['a good webhook', {}, []],
    ['no sideEffects', { sideEffects: undefined }, ['webhooks[0].sideEffects FieldValueRequired']],
    ['sideEffects Some', { sideEffects: 'Some' }, ['webhooks[0].sideEffects FieldValueNotSupported']],
    ['no review versions', { admissionReviewVersions: [] }, ['webhooks[0].admissionReviewVersions FieldValueRequired']],
    ['unknown review versions', { admissionReviewVersions: ['v2'] }, ['webhooks[0].admissionReviewVersions FieldValueInvalid']],
    ['a short name', { name: 'deny' }, ['webhooks[0].name FieldValueInvalid']],
    ['timeout 31', { timeoutSeconds: 31 }, ['webhooks[0].timeoutSeconds FieldValueInvalid']],
    ['timeout 0', { timeoutSeconds: 0 }, ['webhooks[0].timeoutSeconds FieldValueInvalid']],
    ['http url', { clientConfig: { url: 'http://x.example.com/' } }, ['webhooks[0].clientConfig.url FieldValueInvalid']],
    ['url with user info', { clientConfig: { url: 'https://u:p@x.example.com/' } }, ['webhooks[0].clientConfig.url FieldValueInvalid']],
    ['url with a query', { clientConfig: { url: 'https://x.example.com/?a=b' } }, ['webhooks[0].clientConfig.url FieldValueInvalid']],
    ['url with a fragment', { clientConfig: { url: 'https://x.example.com/#f' } }, ['webhooks[0].clientConfig.url FieldValueInvalid']],
    ['no client config', { clientConfig: {} }, ['webhooks[0].clientConfig FieldValueRequired']],
    ['url and service', { clientConfig: { url: 'https://x.example.com/', service: { namespace: 'a', name: 'b' } } }, ['webhooks[0].clientConfig FieldValueRequired']],
    ['service without a name', { clientConfig: { service: { namespace: 'a' } } }, ['webhooks[0].clientConfig.service.name FieldValueRequired']],
    ['service port 0', { clientConfig: { service: { namespace: 'a', name: 'b', port: 0 } } }, ['webhooks[0].clientConfig.service.port FieldValueInvalid']],
    ['bad operation', { rules: [{ operations: ['PATCH'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }, ['webhooks[0].rules[0].operations[0] FieldValueNotSupported']],
    ['bad scope', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Node' }] }, ['webhooks[0].rules[0].scope FieldValueNotSupported']],
    ['bad failurePolicy', { failurePolicy: 'Maybe' }, ['webhooks[0].failurePolicy FieldValueNotSupported']],
  ])('%s', (_name, fields, expected) => {
    expect(brief(validating.validate(config({ ...good(), ...fields })))).toEqual(expected);
  });

  test('webhook names are unique within a configuration', () => {
    expect(brief(mutating.validate(config(good(), good())))).toEqual(['webhooks[1].name FieldValueDuplicate']);
  });
});

describe('admissionregistration/v1beta1 (a removed version over the same objects)', () => {
  const beta = webhookConfigurationStrategy(true, 'v1beta1');
  test('its own defaults', () => {
    const c = config({ name: 'old.example.com', clientConfig: { url: 'https://127.0.0.1/' } });
    beta.prepareForCreate(c);
    expect(c.webhooks![0]).toMatchObject({ failurePolicy: 'Ignore', matchPolicy: 'Exact', timeoutSeconds: 30, sideEffects: 'Unknown', admissionReviewVersions: ['v1beta1'], reinvocationPolicy: 'Never' });
    expect(brief(beta.validate(c))).toEqual([]);
  });
  test('Unknown or Some side effects and repeated names are allowed; v1 refuses them unless the stored object had them', () => {
    const c = config({ ...good(), sideEffects: 'Some' }, { ...good(), sideEffects: 'Unknown' });
    c.metadata.resourceVersion = '5';
    beta.prepareForCreate(c);
    expect(brief(beta.validate(c))).toEqual([]);
    expect(brief(mutating.validate(c))).toEqual(['webhooks[0].sideEffects FieldValueNotSupported', 'webhooks[1].name FieldValueDuplicate', 'webhooks[1].sideEffects FieldValueNotSupported']);
    expect(brief(mutating.validateUpdate(c, c))).toEqual([]);
    const clean = config(good());
    expect(brief(mutating.validateUpdate({ ...c, metadata: { ...c.metadata } }, clean))).toContain('webhooks[1].name FieldValueDuplicate');
  });
});
