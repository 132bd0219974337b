import fc from 'fast-check';
import { StatusError } from '@cluster/apimachinery';
import { parseListQuery } from './list-options.js';
import { parseDeleteOptions, parseWriteQuery } from './options.js';
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
  fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v))),
  fc.record({ gracePeriodSeconds: fc.jsonValue({ maxDepth: 1 }), propagationPolicy: fc.jsonValue({ maxDepth: 1 }), dryRun: fc.jsonValue({ maxDepth: 1 }), preconditions: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }).map((v) => Buffer.from(JSON.stringify(v))),
  fc.string({ maxLength: 40 }).map((s) => Buffer.from(s)),
);

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
