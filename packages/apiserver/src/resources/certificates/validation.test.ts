import { fieldErrorMessage, type FieldErrorList } from '@cluster/apimachinery';
import { execFileSync } from 'node:child_process';
import { makeTestCsr } from '@cluster/apimachinery';
import type { CertificateSigningRequest, CsrCondition, CsrSpec } from './types.js';
import { validateConditions, validateCsr, validateCsrStatusUpdate, validateCsrUpdate, validateSignerName } from './validation.js';

const D = 'k8s.io';
const msgs = (errs: FieldErrorList) => errs.map(fieldErrorMessage);
const REQUEST = makeTestCsr().request;
const b64 = (s: string) => Buffer.from(s).toString('base64');

const csr = (spec: Partial<CsrSpec> = {}, status?: CertificateSigningRequest['status']): CertificateSigningRequest => ({
  metadata: { name: 'c', resourceVersion: '5' },
  spec: { request: REQUEST, signerName: 'example.com/signer', usages: ['client auth'], username: 'alice', ...spec },
  ...(status ? { status } : {}),
});

describe('validateCsr (create)', () => {
  test.each<[string, Partial<CsrSpec>, string[]]>([
    ['ok', {}, []],
    ['ok with RSA and a duration', { request: makeTestCsr({ key: 'rsa2048' }).request, expirationSeconds: 600 }, []],
    ['no request', { request: '' }, ['spec.request: Required value']],
    ['request not base64', { request: '%%' }, ['spec.request: Invalid value: "%%": illegal base64 data']],
    ['request not PEM', { request: b64('nope') }, [`spec.request: Invalid value: "${b64('nope')}": PEM block type must be CERTIFICATE REQUEST`]],
    ['no signer', { signerName: '' }, ['spec.signerName: Required value']],
    ['legacy signer', { signerName: `${D}/legacy-unknown` }, [`spec.signerName: Invalid value: "${D}/legacy-unknown": the legacy signerName is not allowed via this API version`]],
    ['no usages', { usages: [] }, ['spec.usages: Required value: usages must be provided']],
    ['duplicate usage', { usages: ['client auth', 'client auth'] }, ['spec.usages[1]: Duplicate value: "client auth"']],
    ['expiration too short', { expirationSeconds: 599 }, ['spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)']],
  ])('%s', (_name, spec, want) => {
    expect(msgs(validateCsr(csr(spec), D))).toEqual(want);
  });

  test('unknown usage lists the known ones', () => {
    const [m] = msgs(validateCsr(csr({ usages: ['flying'] }), D));
    expect(m).toMatch(/^spec\.usages\[0\]: Unsupported value: "flying": supported values: "any", "cert sign", "client auth", /);
  });

  test.each(['rsa1024', 'p521', 'ed25519'] as const)('refuses a %s key', (key) => {
    const errs = validateCsr(csr({ request: makeTestCsr({ key }).request }), D);
    expect(errs.map((e) => e.field)).toEqual(['spec.request']);
  });

  test('refuses a request whose signature does not verify', () => {
    const errs = validateCsr(csr({ request: makeTestCsr({ corruptSignature: true }).request }), D);
    expect(errs.map((e) => e.detail)).toEqual(['x509: the request signature does not verify with its public key']);
  });

  test('name must be a path segment', () => {
    const obj = csr();
    obj.metadata.name = 'a/b';
    expect(msgs(validateCsr(obj, D))).toEqual(["metadata.name: Invalid value: \"a/b\": may not contain '/'"]);
  });
});

describe('validateSignerName', () => {
  test.each<[string, string[]]>([
    ['example.com/signer', []],
    ['k8s.io/api-server-client', []],
    ['signer', ["s: Invalid value: \"signer\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ['example.com/', ["s: Invalid value: \"example.com/\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ['example/signer', ['s: Invalid value: "example": should be a domain with at least two segments separated by dots']],
    ['Example.com/signer', [expect.stringMatching(/^s: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label/) as unknown as string]],
    ['example.com/a/b', ["s: Invalid value: \"a/b\": may not contain '/'"]],
  ])('%s', (name, want) => {
    expect(msgs(validateSignerName(name, 's'))).toEqual(want);
  });
});

describe('validateConditions', () => {
  const c = (type: string, status: string): CsrCondition => ({ type, status });
  test.each<[string, CsrCondition[], string[]]>([
    ['approved', [c('Approved', 'True')], []],
    ['approved and failed', [c('Approved', 'True'), c('Failed', 'True')], []],
    ['custom condition False', [c('Checked', 'False')], []],
    ['no type', [c('', 'True')], ['s[0].type: Required value']],
    ['no status', [c('Approved', '')], ['s[0].status: Required value']],
    ['bad status', [c('Checked', 'Maybe')], ['s[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"']],
    ['approved false', [c('Approved', 'False')], ['s[0].status: Invalid value: "False": Approved condition may only be set to True']],
    ['duplicate type', [c('Checked', 'True'), c('Checked', 'False')], ['s[1].type: Duplicate value: "Checked"']],
    ['approved and denied', [c('Approved', 'True'), c('Denied', 'True')], [
      's: Invalid value: [{"type":"Approved","status":"True"},{"type":"Denied","status":"True"}]: Approved and Denied conditions are mutually exclusive',
    ]],
  ])('%s', (_name, conditions, want) => {
    expect(msgs(validateConditions(conditions, 's'))).toEqual(want);
  });
});

describe('updates', () => {
  test.each<[string, Partial<CsrSpec>, string]>([
    ['request', { request: makeTestCsr().request }, 'spec.request'],
    ['signerName', { signerName: 'example.com/other' }, 'spec.signerName'],
    ['usages', { usages: ['server auth'] }, 'spec.usages'],
    ['expirationSeconds', { expirationSeconds: 3600 }, 'spec.expirationSeconds'],
    ['username', { username: 'mallory' }, 'spec.username'],
    ['uid', { uid: 'x' }, 'spec.uid'],
    ['groups', { groups: ['system:masters'] }, 'spec.groups'],
    ['extra', { extra: { a: ['b'] } }, 'spec.extra'],
  ])('spec.%s is immutable', (_name, change, field) => {
    const errs = validateCsrUpdate(csr(change), csr(), D);
    expect(errs.map((e) => [e.field, e.type, e.detail])).toEqual([[field, 'FieldValueInvalid', 'field is immutable']]);
  });

  test('absent and empty values are the same; map key order does not matter', () => {
    const old = csr({ groups: [], extra: { a: ['1'], b: ['2'] } });
    expect(validateCsrUpdate(csr({ extra: { b: ['2'], a: ['1'] } }), old, D)).toEqual([]);
  });

  test('a legacy signer and duplicate usages already stored are kept on update', () => {
    const old = csr({ signerName: `${D}/legacy-unknown`, usages: ['any', 'any'] });
    expect(validateCsrUpdate(csr({ signerName: `${D}/legacy-unknown`, usages: ['any', 'any'] }), old, D)).toEqual([]);
  });

  const approved = { conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }] };
  const denied = { conditions: [{ type: 'Denied', status: 'True', reason: 'No' }] };
  test.each<[string, 'status' | 'approval', CertificateSigningRequest['status'], CertificateSigningRequest['status'], string[]]>([
    ['approve', 'approval', {}, approved, []],
    ['deny', 'approval', {}, denied, []],
    ['reword an approval', 'approval', approved, { conditions: [{ type: 'Approved', status: 'True', reason: 'Other' }] }, []],
    // The self-approval of the security review: a signer's status update may not approve.
    ['approve through status', 'status', {}, approved, ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']],
    ['deny through status', 'status', {}, denied, ['status.conditions: Forbidden: updates may not add a condition of type "Denied"']],
    ['a second Approved through status', 'status', approved, { conditions: [...approved.conditions, { type: 'Approved', status: 'True' }] }, [
      'status.conditions[1].type: Duplicate value: "Approved"',
      'status.conditions: Forbidden: updates may not add a condition of type "Approved"',
    ]],
    ['change Approved through status', 'status', approved, { conditions: [{ type: 'Approved', status: 'True', reason: 'Other' }] }, [
      'status.conditions: Forbidden: updates may not modify a condition of type "Approved"',
    ]],
    ['remove Approved', 'status', approved, { conditions: [] }, ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']],
    ['remove Approved through approval', 'approval', approved, { conditions: [] }, ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']],
    ['deny after approval', 'approval', approved, { conditions: [{ type: 'Denied', status: 'True' }] }, [
      'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    ]],
    ['fail through status', 'status', approved, { conditions: [...approved.conditions, { type: 'Failed', status: 'True' }] }, []],
    ['remove Failed', 'status', { conditions: [{ type: 'Failed', status: 'True' }] }, {}, ['status.conditions: Forbidden: updates may not remove a condition of type "Failed"']],
    ['custom conditions may go', 'status', { conditions: [{ type: 'Checked', status: 'True' }] }, {}, []],
  ])('%s (%s)', (_name, endpoint, before, after, want) => {
    expect(msgs(validateCsrStatusUpdate(csr({}, after), csr({}, before), D, endpoint))).toEqual(want);
  });

  const cert = execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=x', '-days', '1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString();
  test.each<[string, string | undefined, string, string[]]>([
    ['issue', undefined, b64(cert), []],
    ['not PEM', undefined, b64('junk'), ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']],
    ['a key', undefined, b64(makeTestCsr().keyPem), ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"']],
    ['replace', b64(cert), b64(cert + cert), ['status.certificate: Invalid value: "<certificate data>": updates may not modify existing certificate content']],
    ['clear', b64(cert), '', ['status.certificate: Invalid value: "<certificate data>": updates may not modify existing certificate content']],
  ])('certificate: %s', (_name, before, after, want) => {
    const old = csr({}, { ...approved, ...(before ? { certificate: before } : {}) });
    const next = csr({}, { ...approved, certificate: after });
    expect(msgs(validateCsrStatusUpdate(next, old, D, 'status'))).toEqual(want);
  });

  test('the approval endpoint never sets the certificate', () => {
    const next = csr({}, { ...approved, certificate: b64(cert) });
    expect(msgs(validateCsrStatusUpdate(next, csr({}, approved), D, 'approval'))).toEqual(['status.certificate: Forbidden: updates may not set certificate content']);
  });
});
