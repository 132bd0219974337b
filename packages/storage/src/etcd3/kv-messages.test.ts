import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { decodeRangeResponse, decodeTxnResponse, encodeRangeRequest, encodeTxnRequest } from './kv-messages.js';
import { ProtoReader, ProtoWriter } from './proto-wire.js';

// The oracle: etcd's own rpc.proto as the etcd3 package ships it, read by protobufjs.
const protoDir = join(dirname(createRequire(import.meta.url).resolve('etcd3/package.json')), 'proto');
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(protoDir, target.replace(/^\.\//, ''));
root.loadSync('rpc.proto', { keepCase: true });
const type = (name: string) => root.lookupType(`etcdserverpb.${name}`);
const asPlain = (t: protobuf.Type, bytes: Uint8Array) =>
  t.toObject(t.decode(bytes), { longs: String, bytes: Buffer, enums: String, defaults: false, oneofs: false });

const k = (s: string) => Buffer.from(s);

describe('encodeRangeRequest', () => {
  test.each([
    ['one key', { key: k('/registry/a') }],
    ['a prefix with a limit at a revision', { key: k('/p/'), range_end: k('/p0'), limit: 500, revision: '12345' }],
    ['count only', { key: k('/p/'), range_end: k('/p0'), count_only: true }],
    ['keys only with a min mod revision', { key: k('/p/'), range_end: k('/p0'), keys_only: true, limit: 1, min_mod_revision: '42' }],
    ['sorting by names', { key: k('/p/'), sort_order: 'Descend' as const, sort_target: 'Mod' as const }],
    ['a revision past 2^53', { key: k('/p/'), revision: '9007199254740993' }],
  ])('%s decodes to the same request with etcd\'s proto', (_name, req) => {
    const decoded = asPlain(type('RangeRequest'), encodeRangeRequest(req));
    const expected = Object.fromEntries(
      Object.entries(req).map(([key, v]) => [key, typeof v === 'number' ? String(v) : v]),
    );
    expect(decoded).toEqual(expected);
  });

  test('rejects revisions that are not non-negative integers', () => {
    expect(() => encodeRangeRequest({ key: k('a'), revision: '-1' })).toThrow(RangeError);
    expect(() => encodeRangeRequest({ key: k('a'), revision: '1e3' })).toThrow(RangeError);
    expect(() => encodeRangeRequest({ key: k('a'), revision: 1.5 })).toThrow(RangeError);
    expect(() => encodeRangeRequest({ key: k('a'), revision: '9223372036854775808' })).toThrow(RangeError);
  });
});

describe('encodeTxnRequest', () => {
  test('a create: compare create_revision = 0 (a set oneof member, written though 0), then put', () => {
    const bytes = encodeTxnRequest({
      compare: [{ key: k('/a'), target: 'Create', result: 'Equal', create_revision: 0 }],
      success: [{ request_put: { key: k('/a'), value: k('{"x":1}') } }],
      failure: [],
    });
    const t = type('TxnRequest');
    const msg = t.toObject(t.decode(bytes), { longs: String, bytes: Buffer, enums: String, oneofs: true });
    expect(msg).toEqual({
      compare: [{ key: k('/a'), target: 'Create', create_revision: '0', target_union: 'create_revision' }],
      success: [{ request_put: { key: k('/a'), value: k('{"x":1}') }, request: 'request_put' }],
    });
  });

  test('an update: compare mod_revision, put on success, range on failure; a delete', () => {
    const t = type('TxnRequest');
    const update = asPlain(
      t,
      encodeTxnRequest({
        compare: [{ key: k('/a'), target: 'Mod', result: 'Equal', mod_revision: '77' }],
        success: [{ request_put: { key: k('/a'), value: k('v') } }],
        failure: [{ request_range: { key: k('/a') } }],
      }),
    );
    expect(update).toEqual({
      compare: [{ key: k('/a'), target: 'Mod', mod_revision: '77' }],
      success: [{ request_put: { key: k('/a'), value: k('v') } }],
      failure: [{ request_range: { key: k('/a') } }],
    });
    const del = asPlain(
      t,
      encodeTxnRequest({ compare: [{ key: k('/a'), target: 'Value', result: 'NotEqual', value: k('') }], success: [{ request_delete_range: { key: k('/a'), range_end: k('/b') } }] }),
    );
    expect(del).toEqual({
      compare: [{ key: k('/a'), target: 'Value', result: 'NotEqual', value: k('') }],
      success: [{ request_delete_range: { key: k('/a'), range_end: k('/b') } }],
    });
  });

  test('unknown enum names and empty operations are refused', () => {
    expect(() => encodeTxnRequest({ compare: [{ key: k('a'), target: 'Nope' as 'Mod' }] })).toThrow(/compare target/);
    expect(() => encodeTxnRequest({ success: [{}] })).toThrow(/names no request/);
  });
});

describe('decoders', () => {
  const header = { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: '9007199254740993', raft_term: '2' };

  test('a range response: header (uint64 ids past 2^53 exact), kvs, more, count', () => {
    const t = type('RangeResponse');
    const bytes = t
      .encode(
        t.fromObject({
          header,
          kvs: [
            { key: k('/a'), create_revision: '5', mod_revision: '9', version: '2', value: k('{"a":1}') },
            { key: k('/b'), create_revision: '6', mod_revision: '6', version: '1', value: k(''), lease: '7' },
          ],
          more: true,
          count: '12',
        }),
      )
      .finish();
    expect(decodeRangeResponse(Buffer.from(bytes))).toEqual({
      header,
      kvs: [
        { key: k('/a'), create_revision: '5', mod_revision: '9', version: '2', value: k('{"a":1}'), lease: '0' },
        { key: k('/b'), create_revision: '6', mod_revision: '6', version: '1', value: k(''), lease: '7' },
      ],
      more: true,
      count: '12',
    });
  });

  test('an empty range response has the defaults', () => {
    expect(decodeRangeResponse(Buffer.alloc(0))).toEqual({
      header: { cluster_id: '0', member_id: '0', revision: '0', raft_term: '0' },
      kvs: [],
      more: false,
      count: '0',
    });
  });

  test('a txn response with put, range and delete results', () => {
    const t = type('TxnResponse');
    const h = { revision: '40' };
    const bytes = t
      .encode(
        t.fromObject({
          header: h,
          succeeded: true,
          responses: [
            { response_put: { header: h } },
            { response_range: { header: h, kvs: [{ key: k('/x'), mod_revision: '3', value: k('v') }], count: '1' } },
            { response_delete_range: { header: h, deleted: '1' } },
          ],
        }),
      )
      .finish();
    const res = decodeTxnResponse(Buffer.from(bytes));
    const hdr = { cluster_id: '0', member_id: '0', revision: '40', raft_term: '0' };
    expect(res.succeeded).toBe(true);
    expect(res.header).toEqual(hdr);
    expect(res.responses).toEqual([
      { response_put: { header: hdr } },
      {
        response_range: {
          header: hdr,
          kvs: [{ key: k('/x'), create_revision: '0', mod_revision: '3', version: '0', value: k('v'), lease: '0' }],
          more: false,
          count: '1',
        },
      },
      { response_delete_range: { header: hdr, deleted: '1', prev_kvs: [] } },
    ]);
  });

  test('unknown fields of every wire type are skipped', () => {
    const w = new ProtoWriter();
    w.int64(99, 5); // varint
    w.bytes(98, k('zz')); // length-delimited
    w.bool(2, true); // succeeded
    const raw = Buffer.concat([w.finish(), Buffer.from([(97 << 3) | 1, 1, 2, 3, 4, 5, 6, 7, 8, (96 << 3) | 5, 1, 2, 3, 4])]);
    expect(decodeTxnResponse(raw).succeeded).toBe(true);
  });

  test.each([
    ['a truncated varint', Buffer.from([0x08, 0x80])],
    ['a field longer than its message', Buffer.from([0x0a, 0x10, 0x01])],
    ['an unknown wire type', Buffer.from([0x0f])],
    ['a fixed64 cut short', Buffer.from([0x09, 1, 2])],
  ])('%s is an error, not a wrong answer', (_name, bytes) => {
    expect(() => decodeTxnResponse(bytes)).toThrow(/malformed protobuf/);
  });
});

describe('ProtoReader.int64', () => {
  test.each([
    ['0', [0x00]],
    ['300', [0xac, 0x02]],
    ['9007199254740991', [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]],
    ['18446744073709551615', [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]],
  ])('%s', (expected, bytes) => {
    expect(new ProtoReader(Buffer.from(bytes)).int64()).toBe(expected);
  });

  test('large values read again (kept by their bytes) are the same; different bytes are not mixed up', () => {
    const a = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]; // 2^63
    const b = [0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]; // 2^63 + 1
    for (let i = 0; i < 3; i++) {
      expect(new ProtoReader(Buffer.from(a)).int64()).toBe('9223372036854775808');
      expect(new ProtoReader(Buffer.from(b)).int64()).toBe('9223372036854775809');
    }
  });
});
