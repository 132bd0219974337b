import { defaultServerOptions, type ServerOptions } from './flag-definitions.js';
import { alwaysAllowWarning, authorizersFor } from './authorizers.js';

const opts = (o: Partial<ServerOptions>): ServerOptions => ({ ...defaultServerOptions(), ...o });

describe('alwaysAllowWarning', () => {
  test.each<[string, Partial<ServerOptions>, string[] | undefined]>([
    ['Node,RBAC: none', { authorizationModes: ['Node', 'RBAC'], enableBootstrapTokenAuth: true }, undefined],
    ['RBAC: none', { authorizationModes: ['RBAC'] }, undefined],
    ['bare binary: service-account tokens and the data-dir CA', { anonymousAuth: false }, ['service-account tokens', 'x509 client certificates']],
    ['make run before the fix (AlwaysAllow + bootstrap tokens)', { anonymousAuth: false, enableBootstrapTokenAuth: true }, ['bootstrap tokens']],
    ['explicit serving certificate without a client CA', { anonymousAuth: false, tlsCertFile: 'x.crt' }, ['service-account tokens']],
    ['a client CA', { anonymousAuth: false, tlsCertFile: 'x.crt', clientCaFile: 'ca.crt' }, ['x509 client certificates']],
    ['OIDC', { anonymousAuth: false, oidcIssuerUrl: 'https://issuer' }, ['OIDC tokens']],
    ['webhook', { anonymousAuth: false, authenticationTokenWebhookConfigFile: 'w.yaml' }, ['webhook tokens']],
    ['authenticating proxy', { anonymousAuth: false, requestheaderClientCaFile: 'p.crt' }, ['the authenticating proxy']],
    ['anonymous on', { anonymousAuth: true }, ['anonymous requests']],
    ['AlwaysAllow after RBAC still counts', { authorizationModes: ['RBAC', 'AlwaysAllow'], anonymousAuth: false }, ['service-account tokens']],
  ])('%s', (_n, o, names) => {
    const w = alwaysAllowWarning(opts(o));
    if (!names) return expect(w).toBeUndefined();
    for (const n of names) expect(w).toContain(n);
    expect(w).toContain('use --authorization-mode=Node,RBAC');
  });
});

describe('authorizersFor', () => {
  test('Node needs the node authorizer; unknown modes are refused', () => {
    expect(() => authorizersFor(['Node', 'RBAC'])).toThrow('needs the node authorizer');
    expect(() => authorizersFor(['ABAC'])).toThrow('supported: AlwaysAllow, AlwaysDeny, Node, RBAC');
  });

  test('system:masters is allowed first whatever the modes, as upstream; others go to the modes', async () => {
    const info = { isResourceRequest: true, verb: 'list', apiGroup: '', apiVersion: 'v1', resource: 'secrets', subresource: '', namespace: 'x', name: '', path: '/api/v1/namespaces/x/secrets', parts: [] };
    const chain = authorizersFor(['AlwaysDeny']);
    const admin = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
    const other = { username: 'someone', groups: ['system:authenticated'] };
    expect((await chain.authorize({ user: admin, info } as never)).decision).toBe('allow');
    expect((await chain.authorize({ user: other, info } as never)).decision).toBe('deny');
  });
});
