/**
 * Checks of the request line and Host header that Go's HTTP server makes before upstream's
 * handlers see a request, and that Node's parser lets through. Pure: each returns the problem as a
 * status code and message, or undefined when the request may go on.
 */

export interface TargetProblem {
  code: 400 | 404 | 405 | 505;
  message: string;
}

/** Methods the API answers; anything else is 405 before routing (upstream's mux does the same). */
const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Bytes Go's httpguts.ValidHostHeader accepts in a Host header (reg-name, IP literal, port). */
const VALID_HOST = /^[A-Za-z0-9!$%&'()*+,\-.:;=[\]_~]*$/;

export interface RawRequestLine {
  method: string;
  /** The request target as sent (origin-form path and query, absolute-form URL, or `*`). */
  target: string;
  /** HTTP/1.x messages only; HTTP/2 streams have no request line version. */
  httpVersion?: { major: number; minor: number };
  /** Values of every Host header line (HTTP/1.x) in order. */
  hostHeaders: readonly string[];
}

/** The request-line and Host problems of a request, in the order Go's server finds them. */
export function requestLineProblem(req: RawRequestLine): TargetProblem | undefined {
  const v = req.httpVersion;
  if (v) {
    if (v.major >= 2) return { code: 505, message: `unsupported protocol version HTTP/${v.major}.${v.minor}` };
    if (v.major !== 1) return { code: 400, message: 'malformed HTTP request: no HTTP/1.x version' };
    if (v.minor >= 1 && req.hostHeaders.length === 0) return { code: 400, message: 'missing required Host header' };
    if (req.hostHeaders.length > 1) return { code: 400, message: 'too many Host headers' };
  }
  for (const host of req.hostHeaders) {
    if (!VALID_HOST.test(host)) return { code: 400, message: 'malformed Host header' };
  }
  if (!KNOWN_METHODS.has(req.method)) {
    return { code: 405, message: `the server does not allow the method ${JSON.stringify(req.method)} on the requested resource` };
  }
  return targetProblem(req.target);
}

/**
 * Anything in a target that one of {@link targetProblem}'s checks may refuse: a percent escape, a
 * fragment, an empty segment (`//`), a `.` or `..` segment. Query text can match too; such targets
 * just take the full check.
 */
const SUSPECT_IN_TARGET = /[%#]|\/\/|\/\.\.?(?:[/?]|$)/;

/**
 * Problems of the request target itself: asterisk-form (only meaningful for server-wide OPTIONS,
 * which this API does not offer), fragments (never part of a request target, RFC 9112 3.2),
 * malformed percent escapes, and paths whose segments would name another path once decoded or
 * normalised (empty segments, `.` and `..`, encoded slashes). None of them is served as if it were
 * the normalised path.
 */
export function targetProblem(target: string): TargetProblem | undefined {
  // Almost every target is an origin-form path with none of what the checks below look for:
  // one regular expression test instead of splitting the path (a few µs of every request).
  if (target.charCodeAt(0) === 0x2f && !SUSPECT_IN_TARGET.test(target)) return undefined;
  if (target === '*') return { code: 400, message: 'the asterisk-form request target "*" is not served' };
  if (target.includes('#')) return { code: 400, message: 'a request target may not contain a fragment' };
  const path = pathOf(target);
  if (path === undefined || !path.startsWith('/')) return { code: 400, message: `malformed request target ${JSON.stringify(target)}` };
  // A trailing slash is harmless (`/api/`); an empty segment inside the path is not.
  const segments = path.slice(1).split('/');
  for (let i = 0; i < segments.length; i++) {
    const raw = segments[i] as string;
    if (raw === '') {
      if (i === segments.length - 1 || path === '/') continue;
      return { code: 404, message: `the path ${JSON.stringify(path)} has an empty segment` };
    }
    let decoded = raw;
    try {
      if (raw.includes('%')) decoded = decodeURIComponent(raw);
    } catch {
      return { code: 400, message: `invalid URL escape in path segment ${JSON.stringify(raw)}` };
    }
    if (decoded === '.' || decoded === '..') return { code: 400, message: `the path segment ${JSON.stringify(raw)} may not be '.' or '..'` };
    if (decoded.includes('/')) return { code: 400, message: `the path segment ${JSON.stringify(raw)} may not contain an encoded '/'` };
  }
  return undefined;
}

/** The path of an origin-form or absolute-form target, or undefined when it is neither. */
function pathOf(target: string): string | undefined {
  if (target.startsWith('/')) {
    const q = target.indexOf('?');
    return q < 0 ? target : target.slice(0, q);
  }
  if (!/^https?:\/\//i.test(target)) return undefined;
  // Absolute-form is valid HTTP/1.1 (RFC 9112 3.2.2); only its path is routed. The raw path is
  // taken from the text, since URL would normalise dot segments away.
  const afterScheme = target.slice(target.indexOf('//') + 2);
  const slash = afterScheme.indexOf('/');
  if (slash < 0) return '/';
  const rest = afterScheme.slice(slash);
  const q = rest.indexOf('?');
  return q < 0 ? rest : rest.slice(0, q);
}
