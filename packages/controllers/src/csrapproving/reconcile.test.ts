import { makeTestCsr, type TestCsrOptions } from '@cluster/apimachinery';
import type { CertificateSigningRequest } from '../csrsigning/reconcile.js';
import { approvalCandidates, approvalReview } from './reconcile.js';

const D = 'k8s.io';
const NODE_CLIENT = `${D}/api-server-client-node-agent`;
const node: TestCsrOptions = { commonName: 'system:node:n1', organizations: ['system:nodes'] };
const usages = ['digital signature', 'key encipherment', 'client auth'];
const csr = (opts: TestCsrOptions, extra: Partial<NonNullable<CertificateSigningRequest['spec']>> = {}, status: CertificateSigningRequest['status'] = {}): CertificateSigningRequest => ({
  metadata: { name: 'c' },
  spec: { request: makeTestCsr(opts).request, signerName: NODE_CLIENT, usages, username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'], ...extra },
  status,
});

describe('approvalCandidates', () => {
  test('a node-agent client request from a bootstrapper is a nodeclient candidate', () => {
    expect(approvalCandidates(csr(node), D).map((c) => c.subresource)).toEqual(['nodeclient']);
  });

  test('a renewal by the node itself tries selfnodeclient first', () => {
    expect(approvalCandidates(csr(node, { username: 'system:node:n1' }), D).map((c) => c.subresource)).toEqual(['selfnodeclient', 'nodeclient']);
  });

  test.each<[string, CertificateSigningRequest]>([
    ['another signer', csr(node, { signerName: `${D}/api-server-client` })],
    ['a serving request', csr({ ...node, dnsNames: ['n1'] }, { signerName: `${D}/node-agent-serving`, usages: ['digital signature', 'key encipherment', 'server auth'] })],
    ['a subject that is not a node', csr({ commonName: 'alice', organizations: ['system:nodes'] })],
    ['a SAN in a node client request', csr({ ...node, dnsNames: ['n1'] })],
    ['wrong usages', csr(node, { usages: ['client auth'] })],
    ['already approved', csr(node, {}, { conditions: [{ type: 'Approved', status: 'True' }] })],
    ['already denied', csr(node, {}, { conditions: [{ type: 'Denied', status: 'True' }] })],
    ['already issued', csr(node, {}, { certificate: 'eA==' })],
  ])('never: %s', (_, c) => {
    expect(approvalCandidates(c, D)).toEqual([]);
  });

  test('the review asks about the requester, on the candidate subresource', () => {
    const c = csr(node, { uid: 'u1', extra: { k: ['v'] } });
    expect(approvalReview(c, D, approvalCandidates(c, D)[0]!).spec).toEqual({
      user: 'system:bootstrap:abcdef',
      uid: 'u1',
      groups: ['system:bootstrappers'],
      extra: { k: ['v'] },
      resourceAttributes: { group: `certificates.${D}`, resource: 'certificatesigningrequests', verb: 'create', subresource: 'nodeclient', version: '*' },
    });
  });
});
