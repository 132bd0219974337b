import { newNotAcceptable } from '@cluster/apimachinery';
import { isProtobuf, JSON_TYPE, parseAccept, PROTOBUF_ALIAS, PROTOBUF_TYPE, YAML_TYPE } from './media-type.js';

/** What a response body should be: its encoding and whether it is a Table/metadata transform. */
export interface Negotiated {
  encoding: 'json' | 'yaml' | 'protobuf';
  /** The Content-Type to answer with. */
  contentType: string;
  /** Table (SPEC 2.6) or PartialObjectMetadata views asked for with `as=`. */
  as?: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  /** The `g=`/`v=` of the `as=` view: meta.<apiDomain>/v1 or v1beta1. */
  asGroupVersion?: string;
  pretty: boolean;
}

export interface NegotiateOptions {
  /** meta.<apiDomain>: the group the `g=` parameter of Table must name. */
  metaGroup: string;
  /** Whether the endpoint can answer Protobuf (false for Table views and non-built-in kinds). */
  protobufOk: boolean;
  /** Whether Table views may be served at this endpoint (resource get/list/watch). */
  tableOk: boolean;
  pretty: boolean;
}

const SERVED = [JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE, PROTOBUF_ALIAS];

/**
 * Picks the first acceptable media range in the client's order (upstream ignores q ordering in
 * favour of list order for these types). Throws 406 NotAcceptable when nothing fits.
 */
export function negotiate(accept: string | undefined, opts: NegotiateOptions): Negotiated {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return { encoding: 'json', contentType: JSON_TYPE, pretty: opts.pretty };
  for (const r of ranges) {
    const as = r.params.as;
    if (as) {
      if (!opts.tableOk) continue;
      if (as !== 'Table' && as !== 'PartialObjectMetadata' && as !== 'PartialObjectMetadataList') continue;
      if (r.params.g !== opts.metaGroup || (r.params.v !== 'v1' && r.params.v !== 'v1beta1')) continue;
      if (r.type !== JSON_TYPE && r.type !== '*/*') continue;
      return { encoding: 'json', contentType: JSON_TYPE, as, asGroupVersion: `${opts.metaGroup}/${r.params.v}`, pretty: opts.pretty };
    }
    if (r.type === JSON_TYPE || r.type === '*/*' || r.type === 'application/*') {
      return { encoding: 'json', contentType: JSON_TYPE, pretty: opts.pretty };
    }
    if (r.type === YAML_TYPE) return { encoding: 'yaml', contentType: YAML_TYPE, pretty: opts.pretty };
    if (isProtobuf(r.type) && opts.protobufOk) {
      return { encoding: 'protobuf', contentType: r.type, pretty: false };
    }
  }
  const accepted = opts.protobufOk ? SERVED : [JSON_TYPE, YAML_TYPE];
  throw newNotAcceptable(opts.tableOk ? [...accepted, `${JSON_TYPE};as=Table;v=v1;g=${opts.metaGroup}`] : accepted);
}
