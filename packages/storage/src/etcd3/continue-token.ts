import { StorageError } from '../errors.js';

/**
 * Continue tokens carry the revision of the first page and the key to resume after, base64url JSON,
 * in the shape upstream uses ({v, rv, start}) so tokens look familiar in logs. The start key is
 * relative to the list prefix, which keeps a token from reaching outside the listed collection.
 */
interface TokenBody {
  v: string;
  rv: number;
  start: string;
}

const TOKEN_VERSION = 'meta.k8s.io/v1';

export function encodeContinue(revision: number, nextKeyRelative: string): string {
  const body: TokenBody = { v: TOKEN_VERSION, rv: revision, start: nextKeyRelative };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/**
 * Parses a token; throws StorageError InvalidContinue for anything malformed. A revision of -1
 * comes back as 0: read the rest at the latest revision.
 */
export function decodeContinue(token: string): { revision: number; startRelative: string } {
  const bad = (why: string) => new StorageError('InvalidContinue', '', `continue key is not valid: ${why}`);
  let body: unknown;
  try {
    const text = Buffer.from(token, token.includes('+') || token.includes('/') ? 'base64' : 'base64url').toString('utf8');
    body = JSON.parse(text);
  } catch {
    throw bad('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof body !== 'object' || body === null) throw bad('not an object');
  const { v, rv, start } = body as Partial<TokenBody>;
  if (v !== TOKEN_VERSION) throw bad('server does not recognize this encoded version');
  // rv -1 continues at the latest revision: the token handed out when the original was compacted.
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv === 0 || rv < -1) {
    throw bad('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof start !== 'string' || start.length === 0) throw bad('encoded start key empty');
  // The key is resolved under the listed prefix; path segments that climb out are refused.
  if (start.startsWith('/') || start.split('/').some((seg) => seg === '..' || seg === '.')) {
    throw bad(start);
  }
  return { revision: rv === -1 ? 0 : rv, startRelative: start };
}
