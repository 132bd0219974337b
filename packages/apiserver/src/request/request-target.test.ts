import { requestLineProblem, targetProblem } from './request-target.js';
import { firstInvalidUtf8 } from './utf8.js';

const h11 = { major: 1, minor: 1 };

describe('requestLineProblem', () => {
  test.each<[string, Parameters<typeof requestLineProblem>[0], number | undefined]>([
    ['an ordinary request', { method: 'GET', target: '/api/v1/namespaces', httpVersion: h11, hostHeaders: ['h:6443'] }, undefined],
    ['HTTP/2 streams have no Host line', { method: 'GET', target: '/api', hostHeaders: [] }, undefined],
    ['HTTP/1.0 without Host', { method: 'GET', target: '/api', httpVersion: { major: 1, minor: 0 }, hostHeaders: [] }, undefined],
    ['HTTP/1.1 without Host', { method: 'GET', target: '/api', httpVersion: h11, hostHeaders: [] }, 400],
    ['two Host headers', { method: 'GET', target: '/api', httpVersion: h11, hostHeaders: ['a', 'b'] }, 400],
    ['a Host with a space', { method: 'GET', target: '/api', httpVersion: h11, hostHeaders: ['a b'] }, 400],
    ['a Host with angle brackets', { method: 'GET', target: '/api', httpVersion: h11, hostHeaders: ['<x>'] }, 400],
    ['an IPv6 Host', { method: 'GET', target: '/api', httpVersion: h11, hostHeaders: ['[::1]:6443'] }, undefined],
    ['HTTP/2.0 in an HTTP/1 request line', { method: 'GET', target: '/api', httpVersion: { major: 2, minor: 0 }, hostHeaders: ['h'] }, 505],
    ['HTTP/0.9', { method: 'GET', target: '/api', httpVersion: { major: 0, minor: 9 }, hostHeaders: [] }, 400],
    ['PROPFIND', { method: 'PROPFIND', target: '/api', httpVersion: h11, hostHeaders: ['h'] }, 405],
    ['CONNECT over HTTP/2', { method: 'CONNECT', target: 'h:443', hostHeaders: ['h'] }, 405],
    ['OPTIONS on a path', { method: 'OPTIONS', target: '/api', httpVersion: h11, hostHeaders: ['h'] }, undefined],
  ])('%s', (_name, req, code) => {
    expect(requestLineProblem(req)?.code).toBe(code);
  });
});

describe('targetProblem', () => {
  test.each<[string, number | undefined]>([
    ['/api/v1/namespaces/default/configmaps/a', undefined],
    ['/api/v1/namespaces/', undefined],
    ['/', undefined],
    ['/api/v1/namespaces/default/roles/system%3Anode?x=%2F', undefined],
    ['https://127.0.0.1:6443/api/v1/namespaces', undefined],
    ['https://127.0.0.1:6443', undefined],
    ['*', 400],
    ['/api/v1/namespaces#frag', 400],
    ['/api/v1/namespaces/..%2fkube-system/configmaps', 400],
    ['/api/v1/namespaces/default/configmaps/a%2Fb', 400],
    ['/api/v1/namespaces/default/../../api', 400],
    ['/api/v1/namespaces/./default', 400],
    ['/api/v1/namespaces/%2e%2e/configmaps', 400],
    ['https://h/api/v1/../x', 400],
    ['/api/v1/namespaces/%zz', 400],
    ['//api/v1/namespaces', 404],
    ['/api/v1//namespaces', 404],
    ['api/v1', 400],
    ['ftp://h/api', 400],
    // Next to what the quick test of plain paths lets through or sends on to the full check.
    ['/api/v1/namespaces/a/configmaps/.b', undefined],
    ['/api/v1/namespaces/a/configmaps/...', undefined],
    ['/api/v1/namespaces/a/configmaps/a.', undefined],
    ['/api/v1/namespaces?labelSelector=a%3Db&x=//y/..', undefined],
    ['/api/v1/namespaces/..', 400],
    ['/api/v1/namespaces/.?watch=1', 400],
    ['/api/v1/namespaces/../?x', 400],
    ['/api/v1/namespaces//?x', 404],
  ])('%s -> %s', (target, code) => {
    expect(targetProblem(target)?.code).toBe(code);
  });
});

describe('firstInvalidUtf8', () => {
  test.each<[string, number[], number]>([
    ['ASCII', [0x61, 0x62], -1],
    ['two-byte é', [0xc3, 0xa9], -1],
    ['four-byte emoji', [0xf0, 0x9f, 0x98, 0x80], -1],
    ['a lone continuation byte', [0x61, 0x80], 1],
    ['0xff', [0xff], 0],
    ['a truncated sequence', [0x61, 0xe2, 0x82], 1],
    ['an overlong slash', [0xc0, 0xaf], 0],
    ['an encoded surrogate', [0xed, 0xa0, 0x80], 0],
    ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
  ])('%s', (_name, bytes, offset) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(offset);
  });
});
