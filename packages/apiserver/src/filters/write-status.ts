import type { Context } from 'koa';
import type { StatusError } from '@cluster/apimachinery';
import { negotiate } from '../negotiation/negotiate.js';
import { encodeBody } from '../handlers/responders.js';
import type { ProtobufCodec } from '../handlers/scope.js';

/** Writes a Status error in a media type the client accepts (JSON when nothing else fits). */
export function writeStatusError(ctx: Context, err: StatusError, metaGroup: string, protobuf?: ProtobufCodec): void {
  let n;
  try {
    n = negotiate(ctx.get('Accept'), { metaGroup, protobufOk: !!protobuf, tableOk: false, pretty: false });
  } catch {
    n = { encoding: 'json' as const, contentType: 'application/json', pretty: false };
  }
  const { contentType, body } = encodeBody(err.status, n, protobuf);
  for (const [h, v] of Object.entries(err.headers)) ctx.set(h, v);
  ctx.status = err.status.code;
  ctx.set('Content-Type', contentType);
  ctx.body = body;
}
