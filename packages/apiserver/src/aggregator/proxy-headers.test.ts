import { escapeExtraKey, proxyRequestHeaders, proxyResponseHeaders } from './proxy-headers.js';

const user = { username: 'alice', groups: ['dev', 'system:authenticated'], extra: { 'scopes.example.io/a b': ['x', 'y'] } };

describe('proxyRequestHeaders', () => {
  test('credentials, impersonation and forged identity headers are dropped; identity comes from the authenticated user', () => {
    const out = proxyRequestHeaders(
      {
        authorization: 'Bearer secret',
        'impersonate-user': 'root',
        'impersonate-group': 'system:masters',
        'x-remote-user': 'mallory',
        'X-Remote-Group': 'system:masters',
        'x-remote-extra-scopes': 'all',
        'x-remote-uid': '0',
        'x-forged-user': 'eve',
        accept: 'application/json',
        ':path': '/apis/x/v1',
        host: 'front.door',
        connection: 'keep-alive, x-drop-me',
        'x-drop-me': '1',
        'transfer-encoding': 'chunked',
        'user-agent': 'kubectl',
      },
      { user, host: 'api.ns.svc:443', stripNames: ['X-Forged-User'] },
    );
    expect(out).toEqual({
      accept: 'application/json',
      'user-agent': 'kubectl',
      host: 'api.ns.svc:443',
      'X-Remote-User': 'alice',
      'X-Remote-Group': ['dev', 'system:authenticated'],
      'X-Remote-Extra-scopes.example.io%2Fa%20b': ['x', 'y'],
    });
  });

  test('a user without groups or extras sends only X-Remote-User', () => {
    expect(proxyRequestHeaders({}, { user: { username: 'system:anonymous', groups: [] }, host: 'h' })).toEqual({ host: 'h', 'X-Remote-User': 'system:anonymous' });
  });

  test('names outside Latin-1 travel as their UTF-8 bytes', () => {
    const out = proxyRequestHeaders({}, { user: { username: 'jörg-名前', groups: ['équipe'] }, host: 'h' });
    expect(Buffer.from(out['X-Remote-User'] as string, 'latin1').toString('utf8')).toBe('jörg-名前');
    expect((out['X-Remote-Group'] as string[]).map((g) => Buffer.from(g, 'latin1').toString('utf8'))).toEqual(['équipe']);
  });

  test.each([
    ['plain', 'plain'],
    ['a/b', 'a%2Fb'],
    ['with space', 'with%20space'],
    ["it's(*)", 'it%27s%28%2A%29'],
    ['a:b=c@d$e&f+g;h,i?', 'a:b=c@d$e&f+g%3Bh%2Ci%3F'],
  ])('escapeExtraKey(%s)', (key, want) => {
    expect(escapeExtraKey(key)).toBe(want);
  });
});

describe('proxyResponseHeaders', () => {
  test('hop-by-hop headers are dropped', () => {
    expect(proxyResponseHeaders({ 'content-type': 'application/json', connection: 'close', 'transfer-encoding': 'chunked', 'keep-alive': 'timeout=5' })).toEqual({
      'content-type': 'application/json',
    });
  });
});
