import { join } from 'node:path';
import { FlagError, formatUsage, parseFlags, type ServerOptions } from './flags.js';

describe('anonymous default (SPEC 5.4)', () => {
  test.each([
    [[], false],
    [['--authorization-mode=RBAC'], true],
    [['--authorization-mode=AlwaysAllow,RBAC'], true],
    [['--anonymous-auth=true'], true],
    [['--authorization-mode=RBAC', '--anonymous-auth=false'], false],
  ])('%p -> anonymousAuth %p', (args, want) => {
    expect(parseFlags(args).anonymousAuth).toBe(want);
  });
});

describe('parseFlags defaults', () => {
  test('no arguments give upstream defaults', () => {
    const o = parseFlags([]);
    expect(o).toMatchObject<Partial<ServerOptions>>({
      etcdServers: [],
      securePort: 6443,
      bindAddress: '0.0.0.0',
      dataDir: './data',
      certDir: join('./data', 'certs'),
      apiDomain: 'k8s.io',
      anonymousAuth: false, // SPEC 5.4: off by default under AlwaysAllow
      authorizationModes: ['AlwaysAllow'],
      livezGracePeriod: 0,
      shutdownDelayDuration: 0,
      requestTimeout: 60_000,
      maxRequestsInflight: 400,
      maxMutatingRequestsInflight: 200,
      deleteCollectionWorkers: 1,
      watchCacheHistory: 300_000,
      etcdCompactionInterval: 300_000,
      devInsecureHttp: false,
      logLevel: 'info',
      help: false,
    });
  });

  test('cert-dir follows data-dir unless given', () => {
    expect(parseFlags(['--data-dir=/var/x']).certDir).toBe('/var/x/certs');
    expect(parseFlags(['--data-dir=/var/x', '--cert-dir', '/etc/c']).certDir).toBe('/etc/c');
  });
});

describe('parseFlags values', () => {
  test.each<[string[], Partial<ServerOptions>]>([
    [['--etcd-servers=http://a:2379,http://b:2379'], { etcdServers: ['http://a:2379', 'http://b:2379'] }],
    [['--etcd-servers', 'http://a:2379', '--etcd-servers', 'http://b:2379'], { etcdServers: ['http://a:2379', 'http://b:2379'] }],
    [['--etcd-servers='], { etcdServers: [] }],
    [['--secure-port', '0'], { securePort: 0 }],
    [['--secure-port=0x1F90'], { securePort: 8080 }],
    [['--secure-port=1_000'], { securePort: 1000 }],
    [['--secure_port=7443'], { securePort: 7443 }],
    [['--workers', '0'], { workers: 0 }],
    [['--workers=3'], { workers: 3 }],
    [['--workers=1024'], { workers: 1024 }],
    [['--worker-isolation=thread'], { workerIsolation: 'thread' }],
    [['--worker-isolation', 'process'], { workerIsolation: 'process' }],
    [['--bind-address', '::1'], { bindAddress: '::1' }],
    [['--anonymous-auth=false'], { anonymousAuth: false }],
    [['--anonymous-auth=F'], { anonymousAuth: false }],
    [['--anonymous-auth=0', '--anonymous-auth'], { anonymousAuth: true }],
    [['--authorization-mode=Node,RBAC'], { authorizationModes: ['Node', 'RBAC'] }],
    [['--authorization-mode', 'RBAC', '--authorization-mode', 'Node'], { authorizationModes: ['RBAC', 'Node'] }],
    [
      ['--runtime-config=api/all=true,coordination.k8s.io/v1=false', '--runtime-config', 'rbac.authorization.k8s.io/v1/roles'],
      { runtimeConfig: { 'api/all': 'true', 'coordination.k8s.io/v1': 'false', 'rbac.authorization.k8s.io/v1/roles': '' } },
    ],
    [['--feature-gates=APIListChunking=true, ConsistentListFromCache = false'], { featureGates: { APIListChunking: true, ConsistentListFromCache: false } }],
    [['--feature-gates=APIListChunking=false', '--feature-gates=ConsistentListFromCache=1'], { featureGates: { APIListChunking: false, ConsistentListFromCache: true } }],
    [['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=kube', '--oidc-required-claim=a=b,c', '--oidc-required-claim', 'd=e'], { oidcRequiredClaims: { a: 'b,c', d: 'e' } }],
    [['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=kube', '--oidc-signing-algs=RS256,ES256', '--oidc-signing-algs=PS512'], { oidcSigningAlgs: ['RS256', 'ES256', 'PS512'] }],
    [['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=kube', '--oidc-username-claim=email', '--oidc-username-prefix=-', '--oidc-groups-claim=groups', '--oidc-groups-prefix=oidc:', '--oidc-ca-file=/ca.pem'], {
      oidcIssuerUrl: 'https://issuer.example', oidcClientId: 'kube', oidcUsernameClaim: 'email', oidcUsernamePrefix: '-', oidcGroupsClaim: 'groups', oidcGroupsPrefix: 'oidc:', oidcCaFile: '/ca.pem',
    }],
    [[], { oidcIssuerUrl: '', oidcUsernameClaim: 'sub', oidcSigningAlgs: ['RS256'], oidcRequiredClaims: {} }],
    [['--service-account-key-file=a,b', '--service-account-key-file=c'], { serviceAccountKeyFiles: ['a,b', 'c'] }],
    [['--livez-grace-period=1h30m'], { livezGracePeriod: 5_400_000 }],
    [['--shutdown-delay-duration', '500ms'], { shutdownDelayDuration: 500 }],
    [['--request-timeout=1.5s'], { requestTimeout: 1500 }],
    [['--http2-max-streams-per-connection=1000', '--disable-http2-serving'], { http2MaxStreamsPerConnection: 1000, disableHttp2Serving: true }],
    [['--request-timeout=0'], { requestTimeout: 0 }],
    [['--watch-cache-history=90s'], { watchCacheHistory: 90_000 }],
    [['--etcd-compaction-interval=0'], { etcdCompactionInterval: 0 }],
    [['--delete-collection-workers=8'], { deleteCollectionWorkers: 8 }],
    [['--delete-collection-workers', '0'], { deleteCollectionWorkers: 0 }],
    [['--max-requests-inflight=0', '--max-mutating-requests-inflight=1'], { maxRequestsInflight: 0, maxMutatingRequestsInflight: 1 }],
    [['--enable-priority-and-fairness=false', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0'], { enablePriorityAndFairness: false, maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 }],
    [['--token-auth-file', '/t.csv', '--client-ca-file=/ca.crt'], { tokenAuthFile: '/t.csv', clientCaFile: '/ca.crt' }],
    [['--tls-cert-file=/a', '--tls-private-key-file=/b'], { tlsCertFile: '/a', tlsPrivateKeyFile: '/b' }],
    [['--api-domain', 'example.com'], { apiDomain: 'example.com' }],
    [['--log-level=debug'], { logLevel: 'debug' }],
    [['-v', '4'], { verbosity: 4 }],
    [['-v4'], { verbosity: 4 }],
    [['-v=2'], { verbosity: 2 }],
    [['--v=6'], { verbosity: 6 }],
    [['--dev-insecure-http'], { devInsecureHttp: true, bindAddress: '127.0.0.1' }],
    [['--dev-insecure-http', '--bind-address=::1'], { devInsecureHttp: true, bindAddress: '::1' }],
    [['--help'], { help: true }],
    [['-h', '--secure-port=-1'], { help: true, securePort: -1 }],
  ])('%j', (argv, expected) => {
    expect(parseFlags(argv)).toMatchObject(expected);
  });
});

describe('parseFlags errors', () => {
  test.each<[string[], string]>([
    [['--foo'], 'unknown flag: --foo'],
    [['--foo=bar'], 'unknown flag: --foo'],
    [['-x'], "unknown shorthand flag: 'x' in -x"],
    [['---secure-port=1'], 'bad flag syntax: ---secure-port=1'],
    [['--secure-port'], 'flag needs an argument: --secure-port'],
    [['-v'], "flag needs an argument: 'v' in -v"],
    [['--secure-port=abc'], 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    [['--secure-port', ''], 'invalid argument "" for "--secure-port" flag: strconv.ParseInt: parsing "": invalid syntax'],
    [['--secure-port=99999999999999999999'], 'invalid argument "99999999999999999999" for "--secure-port" flag: strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    [['--secure-port=1__0'], 'invalid argument "1__0" for "--secure-port" flag: strconv.ParseInt: parsing "1__0": invalid syntax'],
    [['--secure-port=08'], 'invalid argument "08" for "--secure-port" flag: strconv.ParseInt: parsing "08": invalid syntax'],
    [['--anonymous-auth=maybe'], 'invalid argument "maybe" for "--anonymous-auth" flag: strconv.ParseBool: parsing "maybe": invalid syntax'],
    [['--request-timeout=abc'], 'invalid argument "abc" for "--request-timeout" flag: time: invalid duration "abc"'],
    [['--request-timeout=5'], 'invalid argument "5" for "--request-timeout" flag: time: missing unit in duration "5"'],
    [['--request-timeout=5x'], 'invalid argument "5x" for "--request-timeout" flag: time: unknown unit "x" in duration "5x"'],
    [['--request-timeout=.s'], 'invalid argument ".s" for "--request-timeout" flag: time: invalid duration ".s"'],
    [['--bind-address=localhost'], 'invalid argument "localhost" for "--bind-address" flag: failed to parse IP: "localhost"'],
    [['-v', 'x'], 'invalid argument "x" for "-v, --v" flag: strconv.ParseUint: parsing "x": invalid syntax'],
    [['--v=-1'], 'invalid argument "-1" for "-v, --v" flag: strconv.ParseUint: parsing "-1": invalid syntax'],
    [['--feature-gates=A'], 'invalid argument "A" for "--feature-gates" flag: missing bool value for A'],
    [['--feature-gates=A=yes'], 'invalid argument "A=yes" for "--feature-gates" flag: invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    [['--etcd-servers=a"b'], 'invalid argument "a\\"b" for "--etcd-servers" flag: parse error on line 1, column 2: bare " in non-quoted-field'],
    [['--anonymous-auth', 'false'], '"cluster-apiserver" does not take any arguments, got ["false"]'],
    [['--', '--secure-port=1'], '"cluster-apiserver" does not take any arguments, got ["--secure-port=1"]'],
    [['--secure-port=70000'], '--secure-port 70000 must be between 0 and 65535, inclusive. 0 picks a free port'],
    [['--livez-grace-period=-1s'], '--livez-grace-period can not be a negative value'],
    [['--workers=-1'], '--workers -1 must be between 0 and 1024, inclusive. 0 means one per core'],
    [['--workers=1025'], '--workers 1025 must be between 0 and 1024, inclusive. 0 means one per core'],
    [['--worker-isolation=fiber'], '--worker-isolation "fiber" must be one of: thread, process'],
    [['--worker-isolation='], '--worker-isolation "" must be one of: thread, process'],
    [['--workers=two'], 'invalid argument "two" for "--workers" flag: strconv.ParseInt: parsing "two": invalid syntax'],
    [['--shutdown-delay-duration=-1s'], '--shutdown-delay-duration can not be negative value'],
    [['--max-requests-inflight=-1'], '--max-requests-inflight can not be negative value'],
    [['--http2-max-streams-per-connection=-1'], '--http2-max-streams-per-connection -1 must be between 0 and 4294967295'],
    [['--max-mutating-requests-inflight=-1'], '--max-mutating-requests-inflight can not be negative value'],
    [['--delete-collection-workers=-1'], '--delete-collection-workers can not be negative value'],
    [['--delete-collection-workers=x'], 'invalid argument "x" for "--delete-collection-workers" flag: strconv.ParseInt: parsing "x": invalid syntax'],
    [['--max-requests-inflight=0', '--max-mutating-requests-inflight=0'], '--max-requests-inflight plus --max-mutating-requests-inflight must be positive when --enable-priority-and-fairness is true'],
    [['--request-timeout=-1m'], '--request-timeout can not be negative value'],
    [['--watch-cache-history=0s'], '--watch-cache-history must be greater than 0'],
    [['--authorization-mode=Foo'], 'authorization-mode "Foo" is not a valid mode'],
    [['--authorization-mode='], 'at least one authorization-mode must be passed'],
    [['--authorization-mode=RBAC,RBAC'], 'authorization-mode ["RBAC" "RBAC"] has mode specified more than once'],
    [['--tls-cert-file=/a'], '--tls-cert-file and --tls-private-key-file must be specified together'],
    [['--controllers=*,csrsigner'], '"csrsigner" is not in the list of known controllers'],
    [['--runtime-config=batch/v2alpha1=false'], 'invalid --runtime-config: unknown api groups or resources: batch/v2alpha1'],
    [['--show-hidden-metrics-for-version=1.20'], "--show-hidden-metrics-for-version must be omitted or have the value '1.24'. Only the previous minor version is allowed"],
    [['--feature-gates=Nope=true'], 'invalid argument for "--feature-gates" flag: unrecognized feature gate: Nope'],
    [['--feature-gates=WatchBookmark=false'], 'invalid argument for "--feature-gates" flag: cannot set feature gate WatchBookmark to false, feature is locked to true'],
    [['--controllers=-nope'], '"nope" is not in the list of known controllers'],
    [['--enable-admission-plugins=NamespaceLifecycle,AlwaysPullImages'], 'enable-admission-plugins plugin "AlwaysPullImages" is unknown or not supported by this server (opt-in plugins supported: OwnerReferencesPermissionEnforcement)'],
    [['--cluster-signing-key-file=/k'], '--cluster-signing-cert-file and --cluster-signing-key-file must be specified together'],
    [['--log-level=loud'], '--log-level "loud" must be one of trace, debug, info, warn, error, fatal, silent'],
    [['--dev-insecure-http', '--bind-address=0.0.0.0'], '--dev-insecure-http serves plain HTTP on loopback only, but --bind-address is 0.0.0.0'],
    [['--oidc-issuer-url=https://issuer.example'], 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set'],
    [['--oidc-client-id=kube'], 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set'],
    [['--oidc-groups-claim=groups'], 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set'],
    [['--oidc-issuer-url=http://issuer.example', '--oidc-client-id=kube'], 'jwt[0].issuer.url: Invalid value: "http://issuer.example": URL scheme must be https'],
    [['--oidc-issuer-url=issuer.example', '--oidc-client-id=kube'], 'jwt[0].issuer.url: Invalid value: "issuer.example": URL scheme must be https'],
    [['--oidc-issuer-url=https://issuer.example?x=1', '--oidc-client-id=kube'], 'jwt[0].issuer.url: Invalid value: "https://issuer.example?x=1": URL must not contain a query'],
    [['--oidc-issuer-url=https://u:p@issuer.example#f', '--oidc-client-id=kube'], '[jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example#f": URL must not contain a username or password, jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example#f": URL must not contain a fragment]'],
    [['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=kube', '--oidc-signing-algs=HS256'], 'oidc: unsupported signing alg: "HS256"'],
    [['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=kube', '--oidc-signing-algs='], 'oidc-signing-algs must not be empty'],
    [['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=kube', '--oidc-username-claim='], 'jwt[0].claimMappings.username: Required value: claim or expression is required'],
    [['--oidc-required-claim=novalue'], 'invalid argument "novalue" for "--oidc-required-claim" flag: malformed pair, expect string=string'],
    [['--max-requests-inflight=-1', '--authorization-mode=Foo'], '[--max-requests-inflight can not be negative value, authorization-mode "Foo" is not a valid mode]'],
  ])('%j', (argv, message) => {
    let thrown: unknown;
    try {
      parseFlags(argv);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(FlagError);
    expect((thrown as FlagError).message).toBe(message);
  });

  test('positional arguments name the command', () => {
    expect(() => parseFlags(['serve'], 'my-server')).toThrow('"my-server" does not take any arguments, got ["serve"]');
  });
});

describe('formatUsage', () => {
  test('lists every flag with its default', () => {
    const usage = formatUsage();
    expect(usage).toMatch(/^Usage:\n {2}cluster-apiserver \[flags\]/);
    expect(usage).toMatch(/\n {6}--secure-port int +.*\(default 6443\)\n/);
    expect(usage).toMatch(/\n {6}--request-timeout duration +.*\(default 1m0s\)\n/);
    expect(usage).toMatch(/\n {6}--authorization-mode strings +.*\(default \[AlwaysAllow\]\)\n/);
    expect(usage).toMatch(/\n {2}-v, --v Level +/);
    expect(usage).toMatch(/\n {2}-h, --help +help for the server$/);
  });
});
