import type { IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import { emptyHeader, readHeader, readKeyValue } from './kv-messages.js';
import { ProtoReader, ProtoWriter } from './proto-wire.js';

/**
 * Encoder and decoder of etcd's Watch messages (etcdserverpb WatchRequest / WatchResponse and
 * mvccpb.Event; field numbers of etcd's rpc.proto and kv.proto), in the shapes of the etcd3
 * client's types, so a raw watch reads the same objects from either client. Decoded keys and
 * values are views of the response.
 */

const FILTER_TYPE = { Noput: 0, Nodelete: 1 } as const;

export function encodeWatchRequest(req: IWatchRequest): Buffer {
  const w = new ProtoWriter(64);
  // request_union is a oneof: the member that is set is written even when it is empty.
  if (req.create_request) {
    const c = req.create_request;
    const m = new ProtoWriter(64);
    m.bytes(1, c.key);
    m.bytes(2, c.range_end);
    m.int64(3, c.start_revision);
    m.bool(4, c.progress_notify);
    for (const f of c.filters ?? []) m.int64Always(5, typeof f === 'number' ? f : FILTER_TYPE[f]);
    m.bool(6, c.prev_kv);
    m.int64(7, c.watch_id);
    w.bytesAlways(1, m.finish());
  } else if (req.cancel_request) {
    const m = new ProtoWriter(16);
    m.int64(1, req.cancel_request.watch_id);
    w.bytesAlways(2, m.finish());
  } else if (req.progress_request) {
    w.bytesAlways(3, Buffer.alloc(0));
  } else {
    throw new RangeError('a watch request names no request');
  }
  return w.finish();
}

export function decodeWatchResponse(buf: Buffer): IWatchResponse {
  const r = new ProtoReader(buf);
  const res: IWatchResponse = {
    header: emptyHeader(),
    watch_id: '0',
    created: false,
    canceled: false,
    compact_revision: '0',
    cancel_reason: '',
    fragment: false,
    events: [],
  };
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) res.header = readHeader(r.message());
    // A progress answer's watch_id is -1 (ten bytes of varint): read as its unsigned bits.
    else if (field === 2 && wire === 0) res.watch_id = r.int64();
    else if (field === 3 && wire === 0) res.created = r.bool();
    else if (field === 4 && wire === 0) res.canceled = r.bool();
    else if (field === 5 && wire === 0) res.compact_revision = r.int64();
    else if (field === 6 && wire === 2) res.cancel_reason = r.bytes().toString('utf8');
    else if (field === 7 && wire === 0) res.fragment = r.bool();
    else if (field === 11 && wire === 2) res.events.push(readEvent(r.message()));
    else r.skip(wire);
  }
  return res;
}

function readEvent(r: ProtoReader): IEvent {
  // prev_kv is absent unless asked for (and not compacted); the etcd3 type says otherwise.
  const ev = { type: 'Put' } as IEvent;
  let kv: IEvent['kv'] | undefined;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 0) ev.type = r.varint() === 1 ? 'Delete' : 'Put';
    else if (field === 2 && wire === 2) kv = readKeyValue(r.message());
    else if (field === 3 && wire === 2) ev.prev_kv = readKeyValue(r.message());
    else r.skip(wire);
  }
  ev.kv = kv ?? readKeyValue(new ProtoReader(Buffer.alloc(0)));
  return ev;
}
