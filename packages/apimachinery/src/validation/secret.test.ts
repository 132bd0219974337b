import { fieldErrorMessage, type FieldErrorList } from './field-error.js';
import { validateSecret, validateSecretUpdate, type SecretFields } from './secret.js';
import { bootstrapTokenExpired, bootstrapTokenGroups, parseBootstrapToken } from './bootstrap-token.js';

const summary = (errs: FieldErrorList): string[] => errs.map((e) => `${e.type} ${e.field}`);
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const enc = (d: Record<string, string>) => Object.fromEntries(Object.entries(d).map(([k, v]) => [k, b64(v)]));
const D = 'k8s.io';

const secret = (fields: Omit<SecretFields, 'metadata'> = {}, meta: SecretFields['metadata'] = {}): SecretFields => ({
  metadata: { name: 's', namespace: 'default', ...meta },
  ...fields,
});
const bt = (data: Record<string, string>, name = 'bootstrap-token-abcdef') =>
  secret({ type: 'bootstrap.k8s.io/token', data: enc(data) }, { name, namespace: 'cluster-system' });
const goodBt = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef' };

describe('validateSecret', () => {
  test.each<[string, SecretFields, string[]]>([
    ['empty opaque', secret({ type: 'Opaque' }), []],
    ['no type', secret(), []],
    ['unknown type is free-form', secret({ type: 'example.com/x' }), []],
    ['bad key', secret({ data: { 'a b': b64('x') } }), ['FieldValueInvalid data[a b]']],
    ['dot-dot key', secret({ data: { '..a': b64('x') } }), ['FieldValueInvalid data[..a]']],
    ['no namespace', { metadata: { name: 's' } }, ['FieldValueRequired metadata.namespace']],
    ['sa token without annotation', secret({ type: 'k8s.io/service-account-token' }), ['FieldValueRequired metadata.annotations[k8s.io/service-account.name]']],
    ['sa token with annotation', secret({ type: 'k8s.io/service-account-token' }, { annotations: { 'k8s.io/service-account.name': 'default' } }), []],
    ['dockerconfigjson missing', secret({ type: 'k8s.io/dockerconfigjson' }), ['FieldValueRequired data[.dockerconfigjson]']],
    ['dockerconfigjson not json', secret({ type: 'k8s.io/dockerconfigjson', data: enc({ '.dockerconfigjson': '{' }) }), ['FieldValueInvalid data[.dockerconfigjson]']],
    ['dockerconfigjson ok', secret({ type: 'k8s.io/dockerconfigjson', data: enc({ '.dockerconfigjson': '{"auths":{}}' }) }), []],
    ['dockercfg missing', secret({ type: 'k8s.io/dockercfg' }), ['FieldValueRequired data[.dockercfg]']],
    ['basic-auth empty', secret({ type: 'k8s.io/basic-auth' }), ['FieldValueRequired data[username]', 'FieldValueRequired data[password]']],
    ['basic-auth password only', secret({ type: 'k8s.io/basic-auth', data: enc({ password: 'p' }) }), []],
    ['ssh-auth empty key', secret({ type: 'k8s.io/ssh-auth', data: enc({ 'ssh-privatekey': '' }) }), ['FieldValueRequired data[ssh-privatekey]']],
    ['tls empty', secret({ type: 'k8s.io/tls' }), ['FieldValueRequired data[tls.crt]', 'FieldValueRequired data[tls.key]']],
    ['tls key only', secret({ type: 'k8s.io/tls', data: enc({ 'tls.key': 'k' }) }), ['FieldValueRequired data[tls.crt]']],
    ['tls ok', secret({ type: 'k8s.io/tls', data: enc({ 'tls.key': 'k', 'tls.crt': 'c' }) }), []],
    ['upstream domain is not our tls type', secret({ type: 'kubernetes.io/tls' }), []],
    ['bootstrap ok', bt({ ...goodBt, 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true', expiration: '2030-01-02T03:04:05Z', 'auth-extra-groups': 'system:bootstrappers:nodes, system:bootstrappers:x:y-z', description: 'any text' }), []],
    ['bootstrap missing id and secret', bt({}), ['FieldValueRequired data[token-id]', 'FieldValueRequired data[token-secret]']],
    ['bootstrap short id', bt({ ...goodBt, 'token-id': 'abc' }), ['FieldValueInvalid data[token-id]']],
    ['bootstrap upper-case id', bt({ ...goodBt, 'token-id': 'ABCDEF' }, 'bootstrap-token-ABCDEF'), ['FieldValueInvalid metadata.name', 'FieldValueInvalid data[token-id]']],
    ['bootstrap name mismatch', bt(goodBt, 'bootstrap-token-zzzzzz'), ['FieldValueInvalid metadata.name']],
    ['bootstrap long secret', bt({ ...goodBt, 'token-secret': '0123456789abcdef0' }), ['FieldValueInvalid data[token-secret]']],
    ['bootstrap secret bad chars', bt({ ...goodBt, 'token-secret': '0123456789abcdeF' }), ['FieldValueInvalid data[token-secret]']],
    ['bootstrap expiration not RFC 3339', bt({ ...goodBt, expiration: '2030-01-02 03:04:05' }), ['FieldValueInvalid data[expiration]']],
    ['bootstrap expiration with offset', bt({ ...goodBt, expiration: '2030-01-02T03:04:05.5+02:00' }), []],
    ['bootstrap usage false', bt({ ...goodBt, 'usage-bootstrap-authentication': 'false' }), ['FieldValueInvalid data[usage-bootstrap-authentication]']],
    ['bootstrap usage yes', bt({ ...goodBt, 'usage-bootstrap-signing': 'yes' }), ['FieldValueInvalid data[usage-bootstrap-signing]']],
    ['bootstrap extra group without prefix', bt({ ...goodBt, 'auth-extra-groups': 'system:masters' }), ['FieldValueInvalid data[auth-extra-groups]']],
    ['bootstrap extra group bare prefix', bt({ ...goodBt, 'auth-extra-groups': 'system:bootstrappers:' }), ['FieldValueInvalid data[auth-extra-groups]']],
  ])('%s', (_name, obj, want) => {
    expect(summary(validateSecret(obj, D))).toEqual(want);
  });

  test('size over 1 MiB is rejected at data', () => {
    const big = secret({ data: { a: Buffer.alloc(1024 * 1024).toString('base64'), b: b64('x') } });
    expect(validateSecret(big, D).map(fieldErrorMessage)).toEqual(['data: Too long: must have at most 1048576 bytes']);
    const exact = secret({ data: { a: Buffer.alloc(1024 * 1024).toString('base64') } });
    expect(validateSecret(exact, D)).toEqual([]);
  });

  test('the bootstrap secret value is never echoed', () => {
    const msgs = validateSecret(bt({ ...goodBt, 'token-secret': 'short' }), D).map(fieldErrorMessage);
    expect(msgs).toEqual(['data[token-secret]: Invalid value: "<secret contents redacted>": must be 16 characters of [a-z0-9]']);
  });
});

describe('a docker config value that is not a JSON object is reported in Go\'s words, never quoted (security review)', () => {
  test.each<[string, string]>([
    ['hunter2-registry-password', "invalid character 'h' looking for beginning of value"],
    ['{"auths": hunter2}', "invalid character 'h' looking for beginning of value"],
    ['{"auths":{"r":{"password":"hunter2"', 'unexpected end of JSON input'],
    ['"hunter2"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['[1]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
  ])('%s', (value, why) => {
    const msgs = validateSecret(secret({ type: 'k8s.io/dockerconfigjson', data: enc({ '.dockerconfigjson': value }) }), D).map(fieldErrorMessage);
    expect(msgs).toEqual([`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": ${why}`]);
    expect(msgs.join()).not.toContain('hunter2');
  });

  test('null is an empty config, as Go unmarshals it', () => {
    expect(validateSecret(secret({ type: 'k8s.io/dockercfg', data: enc({ '.dockercfg': 'null' }) }), D)).toEqual([]);
  });
});

describe('validateSecretUpdate', () => {
  const old = secret({ type: 'Opaque', data: enc({ a: 'x' }) }, { resourceVersion: '1' });
  test.each<[string, SecretFields, SecretFields, string[]]>([
    ['data change', secret({ type: 'Opaque', data: enc({ a: 'y' }) }, { resourceVersion: '1' }), old, []],
    ['type change', secret({ type: 'k8s.io/basic-auth', data: enc({ username: 'u' }) }, { resourceVersion: '1' }), old, ['FieldValueInvalid type']],
    ['immutable data change', secret({ type: 'Opaque', immutable: true, data: enc({ a: 'y' }) }, { resourceVersion: '1' }), { ...old, immutable: true }, ['FieldValueForbidden data']],
    ['immutable unset', secret({ type: 'Opaque', data: old.data }, { resourceVersion: '1' }), { ...old, immutable: true }, ['FieldValueForbidden immutable']],
    ['immutable unchanged', secret({ type: 'Opaque', immutable: true, data: old.data }, { resourceVersion: '1' }), { ...old, immutable: true }, []],
  ])('%s', (_name, obj, prev, want) => {
    expect(summary(validateSecretUpdate(obj, prev, D))).toEqual(want);
  });
});

describe('bootstrap token helpers', () => {
  test.each([
    ['abcdef.0123456789abcdef', { id: 'abcdef', secret: '0123456789abcdef' }],
    ['abcdef.0123456789abcde', undefined],
    ['ABCDEF.0123456789abcdef', undefined],
    ['abcdef:0123456789abcdef', undefined],
    [' abcdef.0123456789abcdef', undefined],
    ['eyJhbGciOiJSUzI1NiJ9.e30.sig', undefined],
  ])('parse %s', (token, want) => {
    expect(parseBootstrapToken(token)).toEqual(want);
  });

  const now = Date.parse('2030-01-01T00:00:00Z');
  test.each([
    [{}, false],
    [{ expiration: '2030-01-01T00:00:01Z' }, false],
    [{ expiration: '2030-01-01T00:00:00Z' }, true],
    [{ expiration: '2029-12-31T23:59:59Z' }, true],
    [{ expiration: 'tomorrow' }, true],
  ])('expired %j', (data, want) => {
    expect(bootstrapTokenExpired(data, now)).toBe(want);
  });

  test.each([
    [{}, ['system:bootstrappers']],
    [{ 'auth-extra-groups': 'system:bootstrappers:a,system:bootstrappers:a' }, ['system:bootstrappers', 'system:bootstrappers:a']],
    [{ 'auth-extra-groups': 'system:bootstrappers:a,system:masters' }, undefined],
  ])('groups %j', (data, want) => {
    expect(bootstrapTokenGroups(data)).toEqual(want);
  });
});
