import type { JsonObject } from '@cluster/apimachinery';
import { parseAccept, type MediaType } from '../negotiation/media-type.js';
import { openApiHash, serializeDocument, type SerializedDocument } from './hash.js';
import { encodeOpenApiV2, OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DOTTED } from './v2-protobuf.js';

/** One answer to GET /openapi/v2 (structurally a ServedDocument of the API catalog). */
export interface OpenApiV2Answer {
  contentType: string;
  body: string | Buffer;
  etag?: string;
  status?: number;
  vary: string;
}

function quality(m: MediaType): number {
  const q = m.params.q === undefined ? 1 : Number(m.params.q);
  return Number.isFinite(q) ? q : 0;
}

/** Fewer wildcards first, as goautoneg orders clauses of equal quality. */
function specificity(m: MediaType): number {
  const [type = '', subtype = ''] = m.type.split('/');
  return (type === '*' ? 2 : 0) + (subtype === '*' ? 1 : 0);
}

function matches(range: MediaType, type: string, subtypes: readonly string[]): boolean {
  const [rt = '', rs = ''] = range.type.split('/');
  return (rt === '*' || rt === type) && (rs === '*' || subtypes.includes(rs));
}

const PROTOBUF_SUBTYPES = [OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DOTTED].map((t) => t.slice('application/'.length));

/**
 * The JSON and Protobuf forms of one build's /openapi/v2 document. The JSON form is rendered at
 * once; the Protobuf form (a few hundred milliseconds of encoding) on the first request that asks
 * for it, then kept with the build. Each form has its own ETag, the hash of its bytes. The
 * document itself is not kept: as objects it took ~6 MiB of every serving process's heap beside
 * its 1.3 MB of JSON, and the Protobuf form reads it back from the JSON once.
 */
export class OpenApiV2Forms {
  private readonly json: SerializedDocument;
  private protobuf: { body: Buffer; etag: string } | undefined;

  constructor(doc: JsonObject) {
    this.json = serializeDocument(doc);
  }

  /** The JSON form's text (the document, read back with JSON.parse). */
  get jsonBody(): string {
    return this.json.body;
  }

  /**
   * Picks the form as upstream's kube-openapi handler does: clauses by quality then specificity,
   * the first that names JSON or the Protobuf type (under either name) wins, and a wildcard (any
   * type, or any application type) means JSON; no Accept is any type; nothing acceptable is 406
   * with no body.
   */
  negotiate(accept: string): OpenApiV2Answer {
    const ranges = parseAccept(accept && accept.trim() ? accept : '*/*')
      .map((m, i) => ({ m, i }))
      .sort((a, b) => quality(b.m) - quality(a.m) || specificity(a.m) - specificity(b.m) || a.i - b.i)
      .map((x) => x.m);
    for (const range of ranges) {
      if (matches(range, 'application', ['json'])) {
        return { contentType: 'application/json', body: this.json.body, etag: this.json.etag, vary: 'Accept' };
      }
      if (matches(range, 'application', PROTOBUF_SUBTYPES)) {
        const pb = this.protobufForm();
        return { contentType: OPENAPI_V2_PROTOBUF_DOTTED, body: pb.body, etag: pb.etag, vary: 'Accept' };
      }
    }
    return { contentType: 'text/plain', body: '', status: 406, vary: 'Accept' };
  }

  private protobufForm(): { body: Buffer; etag: string } {
    if (!this.protobuf) {
      const body = Buffer.from(encodeOpenApiV2(JSON.parse(this.json.body) as JsonObject));
      this.protobuf = { body, etag: `"${openApiHash(body)}"` };
    }
    return this.protobuf;
  }
}
