import type {
  ICompare,
  IDeleteRangeRequest,
  IDeleteRangeResponse,
  IKeyValue,
  IPutRequest,
  IPutResponse,
  IRangeRequest,
  IRangeResponse,
  IRequestOp,
  IResponseHeader,
  IResponseOp,
  ITxnRequest,
  ITxnResponse,
} from 'etcd3';
import { ProtoReader, ProtoWriter } from './proto-wire.js';

/**
 * Encoders and decoders of etcd's KV messages (etcdserverpb Range, Txn and their parts; field
 * numbers of etcd's rpc.proto and kv.proto), in the shapes of the etcd3 client's types so the store
 * reads the same objects from either client. Decoded keys and values are views of the response.
 */

const SORT_ORDER = { None: 0, Ascend: 1, Descend: 2 } as const;
const SORT_TARGET = { Key: 0, Version: 1, Create: 2, Mod: 3, Value: 4 } as const;
const COMPARE_RESULT = { Equal: 0, Greater: 1, Less: 2, NotEqual: 3 } as const;
const COMPARE_TARGET = { Version: 0, Create: 1, Mod: 2, Value: 3, Lease: 4 } as const;

function enumValue<T extends Record<string, number>>(names: T, value: number | string | undefined, what: string): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const n = names[value];
  if (n === undefined) throw new RangeError(`unknown ${what}: ${value}`);
  return n;
}

export function encodeRangeRequest(req: IRangeRequest): Buffer {
  const w = new ProtoWriter(64);
  writeRange(w, req);
  return w.finish();
}

export function encodeTxnRequest(req: ITxnRequest): Buffer {
  // Built in a reused writer and copied out once at its final size: a put's value (an object's
  // JSON) would otherwise be copied again each time the writers of the message and its nested
  // ones grew by doubling.
  return Buffer.from(nested(req, writeTxn));
}

function writeRange(w: ProtoWriter, req: IRangeRequest): void {
  w.bytes(1, req.key);
  w.bytes(2, req.range_end);
  w.int64(3, req.limit);
  w.int64(4, req.revision);
  w.int64(5, enumValue(SORT_ORDER, req.sort_order, 'sort order'));
  w.int64(6, enumValue(SORT_TARGET, req.sort_target, 'sort target'));
  w.bool(7, req.serializable);
  w.bool(8, req.keys_only);
  w.bool(9, req.count_only);
  w.int64(10, req.min_mod_revision);
  w.int64(11, req.max_mod_revision);
  w.int64(12, req.min_create_revision);
  w.int64(13, req.max_create_revision);
}

function writePut(w: ProtoWriter, req: IPutRequest): void {
  w.bytes(1, req.key);
  w.bytes(2, req.value);
  w.int64(3, req.lease);
  w.bool(4, req.prev_kv);
  w.bool(5, req.ignore_value);
  w.bool(6, req.ignore_lease);
}

function writeDeleteRange(w: ProtoWriter, req: IDeleteRangeRequest): void {
  w.bytes(1, req.key);
  w.bytes(2, req.range_end);
  w.bool(3, req.prev_kv);
}

function writeCompare(w: ProtoWriter, c: ICompare): void {
  w.int64(1, enumValue(COMPARE_RESULT, c.result, 'compare result'));
  w.int64(2, enumValue(COMPARE_TARGET, c.target, 'compare target'));
  w.bytes(3, c.key);
  // target_union is a oneof: the member that is set is written even when it is 0.
  if (c.version !== undefined) w.int64Always(4, c.version);
  else if (c.create_revision !== undefined) w.int64Always(5, c.create_revision);
  else if (c.mod_revision !== undefined) w.int64Always(6, c.mod_revision);
  else if (c.value !== undefined) w.bytesAlways(7, c.value);
  else if (c.lease !== undefined) w.int64Always(8, c.lease);
  w.bytes(64, c.range_end);
}

function writeRequestOp(w: ProtoWriter, op: IRequestOp): void {
  if (op.request_range) w.bytesAlways(1, nested(op.request_range, writeRange));
  else if (op.request_put) w.bytesAlways(2, nested(op.request_put, writePut));
  else if (op.request_delete_range) w.bytesAlways(3, nested(op.request_delete_range, writeDeleteRange));
  else if (op.request_txn) w.bytesAlways(4, nested(op.request_txn, writeTxn));
  else throw new RangeError('a transaction operation names no request');
}

function writeTxn(w: ProtoWriter, req: ITxnRequest): void {
  for (const c of req.compare ?? []) w.bytesAlways(1, nested(c, writeCompare));
  for (const op of req.success ?? []) w.bytesAlways(2, nested(op, writeRequestOp));
  for (const op of req.failure ?? []) w.bytesAlways(3, nested(op, writeRequestOp));
}

/** Writers of messages being built, one per nesting depth, reused from one message to the next. */
const writers: (ProtoWriter | undefined)[] = [];
let depth = 0;
/** A writer that grew past this is let go once used, rather than kept for every later message. */
const MAX_KEPT_WRITER_BYTES = 64 * 1024;

/**
 * The encoding of `value` as a view of the reused writer of this depth: valid only until the next
 * message of the same depth is built, so the caller copies it at once (into its parent message).
 */
function nested<T>(value: T, write: (w: ProtoWriter, value: T) => void): Buffer {
  const w = (writers[depth] ??= new ProtoWriter(256));
  w.reset();
  depth++;
  try {
    write(w, value);
  } finally {
    depth--;
  }
  if (w.capacity > MAX_KEPT_WRITER_BYTES) writers[depth] = undefined;
  return w.finish();
}

export function decodeRangeResponse(buf: Buffer): IRangeResponse {
  return readRangeResponse(new ProtoReader(buf));
}

export function decodeTxnResponse(buf: Buffer): ITxnResponse {
  return readTxnResponse(new ProtoReader(buf));
}

const EMPTY = Buffer.alloc(0);

export function emptyHeader(): IResponseHeader {
  return { cluster_id: '0', member_id: '0', revision: '0', raft_term: '0' };
}

export function readHeader(r: ProtoReader): IResponseHeader {
  const h = emptyHeader();
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 0) h.cluster_id = r.int64();
    else if (field === 2 && wire === 0) h.member_id = r.int64();
    else if (field === 3 && wire === 0) h.revision = r.int64();
    else if (field === 4 && wire === 0) h.raft_term = r.int64();
    else r.skip(wire);
  }
  return h;
}

export function readKeyValue(r: ProtoReader): IKeyValue {
  const kv: IKeyValue = { key: EMPTY, create_revision: '0', mod_revision: '0', version: '0', value: EMPTY, lease: '0' };
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) kv.key = r.bytes();
    else if (field === 2 && wire === 0) kv.create_revision = r.int64();
    else if (field === 3 && wire === 0) kv.mod_revision = r.int64();
    else if (field === 4 && wire === 0) kv.version = r.int64();
    else if (field === 5 && wire === 2) kv.value = r.bytes();
    else if (field === 6 && wire === 0) kv.lease = r.int64();
    else r.skip(wire);
  }
  return kv;
}

function readRangeResponse(r: ProtoReader): IRangeResponse {
  const res: IRangeResponse = { header: emptyHeader(), kvs: [], more: false, count: '0' };
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) res.header = readHeader(r.message());
    else if (field === 2 && wire === 2) res.kvs.push(readKeyValue(r.message()));
    else if (field === 3 && wire === 0) res.more = r.bool();
    else if (field === 4 && wire === 0) res.count = r.int64();
    else r.skip(wire);
  }
  return res;
}

function readPutResponse(r: ProtoReader): IPutResponse {
  // prev_kv is absent unless asked for; the etcd3 client's type says otherwise, its decoder too.
  const res = { header: emptyHeader() } as IPutResponse;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) res.header = readHeader(r.message());
    else if (field === 2 && wire === 2) res.prev_kv = readKeyValue(r.message());
    else r.skip(wire);
  }
  return res;
}

function readDeleteRangeResponse(r: ProtoReader): IDeleteRangeResponse {
  const res: IDeleteRangeResponse = { header: emptyHeader(), deleted: '0', prev_kvs: [] };
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) res.header = readHeader(r.message());
    else if (field === 2 && wire === 0) res.deleted = r.int64();
    else if (field === 3 && wire === 2) res.prev_kvs.push(readKeyValue(r.message()));
    else r.skip(wire);
  }
  return res;
}

function readResponseOp(r: ProtoReader): IResponseOp {
  // A oneof: exactly one member is set; the others stay absent, whatever the etcd3 type says.
  const op = {} as IResponseOp;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) op.response_range = readRangeResponse(r.message());
    else if (field === 2 && wire === 2) op.response_put = readPutResponse(r.message());
    else if (field === 3 && wire === 2) op.response_delete_range = readDeleteRangeResponse(r.message());
    else if (field === 4 && wire === 2) op.response_txn = readTxnResponse(r.message());
    else r.skip(wire);
  }
  return op;
}

function readTxnResponse(r: ProtoReader): ITxnResponse {
  const res: ITxnResponse = { header: emptyHeader(), succeeded: false, responses: [] };
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) res.header = readHeader(r.message());
    else if (field === 2 && wire === 0) res.succeeded = r.bool();
    else if (field === 3 && wire === 2) res.responses.push(readResponseOp(r.message()));
    else r.skip(wire);
  }
  return res;
}
