import { StorageError } from '../errors.js';
import { translateEtcdError } from './etcd-errors.js';
import { EtcdRpcError, GrpcCode } from './kv-client.js';

// What etcd answers, as the lean client reports it, and what the apiserver must make of it.
describe('translateEtcdError', () => {
  test.each([
    ['no quorum: request timed out', new EtcdRpcError(GrpcCode.UNAVAILABLE, 'etcdserver: request timed out'), 'UnreachableEtcd'],
    ['no quorum: the member\'s own deadline', new EtcdRpcError(GrpcCode.UNKNOWN, 'context deadline exceeded'), 'UnreachableEtcd'],
    ['a client deadline', new EtcdRpcError(GrpcCode.DEADLINE_EXCEEDED, 'deadline exceeded'), 'UnreachableEtcd'],
    ['a refused connection', new Error('connect ECONNREFUSED 127.0.0.1:2379'), 'UnreachableEtcd'],
    ['a compacted revision', new EtcdRpcError(11, 'etcdserver: mvcc: required revision has been compacted'), 'Compacted'],
    ['a future revision', new EtcdRpcError(11, 'etcdserver: mvcc: required revision is a future revision'), 'TooLargeResourceVersion'],
    ['a request over the limit', new EtcdRpcError(3, 'etcdserver: request is too large'), 'RequestTooLarge'],
  ])('%s', (_, err, code) => {
    const out = translateEtcdError(err, '/registry/x');
    expect(out).toBeInstanceOf(StorageError);
    expect((out as StorageError).code).toBe(code);
  });

  test('any other UNKNOWN answer stays what it is (an internal error, not an outage)', () => {
    const err = new EtcdRpcError(GrpcCode.UNKNOWN, 'something unexpected');
    expect(translateEtcdError(err, '/registry/x')).toBe(err);
  });
});
