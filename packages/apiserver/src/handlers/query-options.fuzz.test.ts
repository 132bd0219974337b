import fc from 'fast-check';
import { decodeProtobufDeleteOptions, StatusError, type JsonObject } from '@cluster/apimachinery';
import { parseListQuery } from './list-options.js';
import { parseDeleteOptions, parseWriteQuery } from './options.js';
import { decodeDeleteOptionsBody } from './delete-options-body.js';
import type { RequestScope } from './scope.js';
import { checkQueryParams } from './query-params.js';
import { requestLineProblem, targetProblem } from '../request/request-target.js';
import { parseRequestInfo } from '../request/request-info.js';
import { mediaTypeSyntaxError } from '../negotiation/media-type.js';
import { tokenOfAuthorization } from '../authn/authenticator.js';

/**
 * Property tests over the query-option parsers and the request-line checks: any input gives a
 * value or a 4xx StatusError, never a generic exception (which the server would answer with 500).
 */

const RUNS = 500;

function expectTyped(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    expect(e.status.code).toBeGreaterThanOrEqual(400);
    expect(e.status.code).toBeLessThan(500);
  }
}

const NAMES = ['limit', 'timeoutSeconds', 'gracePeriodSeconds', 'resourceVersion', 'resourceVersionMatch', 'continue', 'watch', 'allowWatchBookmarks', 'dryRun', 'fieldManager', 'fieldValidation', 'force', 'propagationPolicy', 'labelSelector', 'fieldSelector'];
const VALUES = ['', '0', '-1', '1', '99999999999999999999', '9223372036854775807', '9223372036854775808', '-9223372036854775809', ' 5 ', '1.5', '1e3', 'abc', 'All', 'Exact', 'NotOlderThan', 'Strict', 'Orphan', 'true', '\u0000', '%', 'x'.repeat(200)];
const query = fc
  .array(fc.tuple(fc.constantFrom(...NAMES), fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 24 }))), { maxLength: 6 })
  .map((pairs) => new URLSearchParams(pairs));

const deleteBody = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 2 })),
  fc.record(
    {
      gracePeriodSeconds: fc.jsonValue({ maxDepth: 1 }),
      propagationPolicy: fc.jsonValue({ maxDepth: 1 }),
      orphanDependents: fc.jsonValue({ maxDepth: 1 }),
      dryRun: fc.jsonValue({ maxDepth: 1 }),
      preconditions: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  ),
) as fc.Arbitrary<JsonObject | undefined>;

/** Raw DELETE bodies under the media types clients send, Protobuf envelopes included. */
const rawDeleteBody = fc.record({
  contentType: fc.constantFrom(undefined, 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/vnd.cluster.protobuf', 'text/plain', 'application/json;x'),
  body: fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v))),
    fc.string({ maxLength: 40 }).map((s) => Buffer.from(s)),
    fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from(b)])),
  ),
});

describe('query options never fail untyped', () => {
  test('list and watch options', () => {
    fc.assert(
      fc.property(query, fc.boolean(), (q, isWatch) => {
        expectTyped(() => checkQueryParams(q));
        expectTyped(() => parseListQuery(q, isWatch));
      }),
      { numRuns: RUNS },
    );
  });

  test('write options', () => {
    fc.assert(
      fc.property(query, fc.constantFrom('CreateOptions', 'UpdateOptions', 'PatchOptions') as fc.Arbitrary<'CreateOptions'>, (q, kind) => {
        expectTyped(() => parseWriteQuery(q, kind));
      }),
      { numRuns: RUNS },
    );
  });

  test('delete options from the query and the body', () => {
    fc.assert(
      fc.property(query, deleteBody, (q, body) => {
        expectTyped(() => parseDeleteOptions(q, body));
      }),
      { numRuns: RUNS },
    );
  });

  test('delete option bodies of every media type, Protobuf garbage included', () => {
    fc.assert(
      fc.property(rawDeleteBody, ({ contentType, body }) => {
        const scope = {
          body,
          contentType,
          apiDomain: 'k8s.io',
          registry: { schemas: undefined },
          decodeProtobufDeleteOptions: (bytes: Uint8Array) => decodeProtobufDeleteOptions(bytes),
        } as unknown as RequestScope;
        expectTyped(() => parseDeleteOptions(new URLSearchParams(), decodeDeleteOptionsBody(scope)));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('request lines never fail untyped', () => {
  const TARGET_PARTS = ['/', 'api', 'apis', 'v1', 'namespaces', 'default', 'configmaps', '..', '.', '%2f', '%2F', '%', '%zz', '#', '?', '*', 'a', '//', '%2e%2e', 'https://h'];
  const target = fc.oneof(fc.array(fc.constantFrom(...TARGET_PARTS), { maxLength: 8 }).map((p) => p.join('')), fc.string({ maxLength: 30 }));
  test('targets, methods, versions and Host headers', () => {
    fc.assert(
      fc.property(
        target,
        fc.constantFrom('GET', 'POST', 'PROPFIND', 'CONNECT', 'TRACE', 'get', ''),
        fc.option(fc.record({ major: fc.integer({ min: 0, max: 3 }), minor: fc.integer({ min: 0, max: 9 }) }), { nil: undefined }),
        fc.array(fc.oneof(fc.constantFrom('h', 'a b', 'x:1', '[::1]:6443', ''), fc.string({ maxLength: 10 })), { maxLength: 3 }),
        (t, method, httpVersion, hostHeaders) => {
          const problem = requestLineProblem({ method, target: t, ...(httpVersion ? { httpVersion } : {}), hostHeaders });
          if (problem) expect([400, 404, 405, 505]).toContain(problem.code);
          // What passes the checks is routed without surprises.
          else if (t.startsWith('/')) expect(() => parseRequestInfo(method, t.split('?')[0] ?? '', new URLSearchParams())).not.toThrow();
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('no target that passes names a path other than its own', () => {
    fc.assert(
      fc.property(target, (t) => {
        if (targetProblem(t) !== undefined || !t.startsWith('/')) return;
        const path = t.split('?')[0] as string;
        const segments = path.split('/').slice(1, -1);
        for (const s of segments) {
          expect(s).not.toBe('');
          const decoded = decodeURIComponent(s);
          expect(['.', '..']).not.toContain(decoded);
          expect(decoded).not.toContain('/');
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('media types and Authorization headers', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        expect(['string', 'undefined']).toContain(typeof mediaTypeSyntaxError(text));
        const token = tokenOfAuthorization(text);
        if (typeof token === 'string') expect(token).not.toContain(' ');
      }),
      { numRuns: RUNS },
    );
  });
});
