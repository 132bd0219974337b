import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { newRequestError } from '@cluster/apimachinery';
import { requestLineProblem } from '../request/request-target.js';
import type { ProtobufCodec } from '../handlers/scope.js';
import type { RequestState } from './state.js';
import { writeStatusError } from './write-status.js';

/** Host header lines of an HTTP/1.x request: Node keeps only the first in `headers.host`. */
function hostHeaders(req: IncomingMessage): string[] {
  const out: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).length === 4 && raw[i]!.toLowerCase() === 'host') out.push(raw[i + 1] ?? '');
  return out;
}

/**
 * The first step of the chain: a request line, target or Host header that Go's server (or the
 * HTTP RFCs) would refuse gets its 4xx/505 Status here, before anything parses the URL, so no
 * later step can serve it as a normalised path or fail on it with a 500. HTTP/1.x keep-alive
 * connections stay usable after these answers.
 */
export function withRequestTarget(metaGroup: string, protobuf?: ProtobufCodec): Middleware<RequestState> {
  // Not an async function: nothing runs after the rest of the chain, whose promise is handed on.
  return (ctx, next) => {
    const req = ctx.req;
    const isHttp1 = !('stream' in req);
    const problem = requestLineProblem({
      method: req.method ?? '',
      target: req.url ?? '',
      ...(isHttp1
        ? { httpVersion: { major: req.httpVersionMajor, minor: req.httpVersionMinor }, hostHeaders: hostHeaders(req) }
        : { hostHeaders: [req.headers[':authority'] ?? req.headers.host ?? ''].filter((h): h is string => typeof h === 'string' && h !== '') }),
    });
    if (problem) {
      // Nothing may read a body the request line already disqualified; draining it keeps an
      // HTTP/1.1 connection usable for the next request.
      req.resume();
      if (isHttp1 && (problem.code === 505 || problem.message.includes('Host'))) ctx.set('Connection', 'close');
      writeStatusError(ctx, newRequestError(problem.code, problem.message), metaGroup, protobuf);
      return Promise.resolve();
    }
    return next();
  };
}
