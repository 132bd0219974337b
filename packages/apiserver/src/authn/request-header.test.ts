import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCsr } from '@cluster/apimachinery';
import { RequestHeaderAuthenticator, userFromHeaders } from './request-header.js';

const opts = { usernameHeaders: ['X-Remote-User', 'X-Other-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

describe('userFromHeaders (SPEC 5.3)', () => {
  test.each<[string, string[], object | undefined]>([
    ['no username header', ['X-Remote-Group', 'g'], undefined],
    ['an empty first username header falls through to the next', ['X-Remote-User', '', 'x-other-user', 'bob'], { username: 'bob', groups: [] }],
    [
      'every header line, case-insensitive names, extras lower-cased and percent-decoded',
      ['x-remote-user', 'alice', 'X-Remote-Uid', 'u1', 'X-REMOTE-GROUP', 'a', 'X-Remote-Group', 'b,c', 'X-Remote-Extra-Scopes', 's1', 'X-Remote-Extra-Scopes', 's2', 'X-Remote-Extra-Example.com%2FKey', 'v'],
      { username: 'alice', uid: 'u1', groups: ['a', 'b,c'], extra: { scopes: ['s1', 's2'], 'example.com/key': ['v'] } },
    ],
  ])('%s', (_, raw, want) => {
    expect(userFromHeaders(raw, opts)).toEqual(want);
  });
});

describe('RequestHeaderAuthenticator: the proxy certificate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'request-header-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=proxy-ca', '-days', '3');
  const issue = (name: string, cn: string, tag?: number) => {
    writeFileSync(join(dir, `${name}.csr`), makeTestCsr({ commonName: cn, ...(tag ? { commonNameTag: tag } : {}) }).pem);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '2', '-out', `${name}.crt`, '-days', '1');
    return new X509Certificate(readFileSync(join(dir, `${name}.crt`))).raw;
  };
  const proxy = issue('proxy', 'front-proxy');
  const forged = issue('forged', 'front-proxy@', 0x13); // a PrintableString Go refuses
  const ca = new X509Certificate(readFileSync(join(dir, 'ca.crt')));
  const request = (raw: Buffer) =>
    ({ socket: { authorized: true, getPeerCertificate: () => ({ raw, subject: { CN: 'front-proxy' } }) }, headers: { 'x-remote-user': 'alice' }, rawHeaders: ['X-Remote-User', 'alice'] }) as unknown as IncomingMessage;

  test('is checked to be within its validity on every request, and its CN read with Go\'s rules', () => {
    let now = Date.now();
    const authn = new RequestHeaderAuthenticator({ ...opts, cas: [ca], allowedNames: ['front-proxy'], now: () => now });
    expect(authn.authenticate(request(proxy))).toEqual({ username: 'alice', groups: [] });
    expect(authn.authenticate(request(forged))).toBeUndefined();
    now += 2 * 24 * 3600 * 1000;
    expect(authn.authenticate(request(proxy))).toBeUndefined();
  });

  // One connection carries many requests: its certificate is judged once, its window every time.
  const onSocket = (socket: object, rawHeaders: string[]) => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < rawHeaders.length; i += 2) headers[rawHeaders[i]!.toLowerCase()] = rawHeaders[i + 1]!;
    return { socket, headers, rawHeaders: [...rawHeaders] } as unknown as IncomingMessage;
  };
  const socketOf = (raw: Buffer) => ({ authorized: true, getPeerCertificate: () => ({ raw }) });

  test('on a kept-alive connection the validity window still applies to every request', () => {
    let now = Date.now();
    const authn = new RequestHeaderAuthenticator({ ...opts, cas: [ca], allowedNames: ['front-proxy'], now: () => now });
    const socket = socketOf(proxy);
    expect(authn.authenticate(onSocket(socket, ['X-Remote-User', 'alice']))).toEqual({ username: 'alice', groups: [] });
    expect(authn.authenticate(onSocket(socket, ['X-Remote-User', 'bob', 'X-Remote-Group', 'g']))).toEqual({ username: 'bob', groups: ['g'] });
    now += 2 * 24 * 3600 * 1000;
    expect(authn.authenticate(onSocket(socket, ['X-Remote-User', 'alice']))).toBeUndefined();
  });

  test('identity headers from a connection that is no allowed proxy are never believed, and are stripped', () => {
    const authn = new RequestHeaderAuthenticator({ ...opts, cas: [ca], allowedNames: ['someone-else'] });
    const socket = socketOf(proxy);
    // A first request without the headers takes the quick path; the next ones must still be judged.
    expect(authn.authenticate(onSocket(socket, ['Accept', '*/*']))).toBeUndefined();
    for (let i = 0; i < 2; i++) {
      const req = onSocket(socket, ['X-Remote-User', 'system:admin', 'X-Remote-Group', 'system:masters', 'X-Remote-Extra-Scopes', 's', 'Accept', '*/*']);
      expect(authn.authenticate(req)).toBeUndefined();
      expect(req.rawHeaders).toEqual(['Accept', '*/*']);
      expect(Object.keys(req.headers)).toEqual(['accept']);
    }
    // A forged certificate on its own connection is refused too, whatever came before.
    const good = new RequestHeaderAuthenticator({ ...opts, cas: [ca], allowedNames: ['front-proxy'] });
    expect(good.authenticate(onSocket(socketOf(proxy), ['X-Remote-User', 'alice']))).toEqual({ username: 'alice', groups: [] });
    expect(good.authenticate(onSocket(socketOf(forged), ['X-Remote-User', 'alice']))).toBeUndefined();
    // Not authorized at the TLS layer: no identity, whatever the certificate.
    expect(good.authenticate(onSocket({ ...socketOf(proxy), authorized: false }, ['X-Remote-User', 'alice']))).toBeUndefined();
  });
});
