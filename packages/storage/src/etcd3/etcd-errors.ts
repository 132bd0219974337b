import { StorageError } from '../errors.js';
import { EtcdRpcError, GrpcCode } from './kv-client.js';

/**
 * Maps an error thrown by the etcd client to a StorageError where it has a meaning the apiserver
 * must answer precisely; returns the error unchanged otherwise.
 */
export function translateEtcdError(e: unknown, key: string): unknown {
  if (!(e instanceof Error)) return e;
  const text = e.message;
  if (text.includes('required revision has been compacted')) {
    return new StorageError('Compacted', key, 'the requested revision has been compacted');
  }
  if (text.includes('required revision is a future revision')) {
    return new StorageError('TooLargeResourceVersion', key, 'the requested revision is newer than the store');
  }
  if (text.includes('request is too large') || text.includes('RESOURCE_EXHAUSTED') || e.name === 'GRPCResourceExhastedError') {
    return new StorageError('RequestTooLarge', key, 'the object is too large to store (etcd request limit)');
  }
  if (
    (e instanceof EtcdRpcError && (e.code === GrpcCode.UNAVAILABLE || e.code === GrpcCode.DEADLINE_EXCEEDED)) ||
    // A member without quorum also answers UNKNOWN "context deadline exceeded" (its own request
    // context ran out): the same condition as "etcdserver: request timed out", not a bug to report.
    (e instanceof EtcdRpcError && e.code === GrpcCode.UNKNOWN && text.includes('context deadline exceeded')) ||
    e.name === 'GRPCUnavailableError' ||
    e.name === 'GRPCConnectFailedError' ||
    e.name === 'GRPCDeadlineExceededError' ||
    text.includes('ECONNREFUSED') ||
    text.includes('No connection established')
  ) {
    return new StorageError('UnreachableEtcd', key, `etcd is unreachable: ${text}`);
  }
  return e;
}
