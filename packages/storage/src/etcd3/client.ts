import { Etcd3 } from 'etcd3';

/** gRPC receive limit: large enough for a whole range of tens of thousands of objects. */
const MAX_RECEIVE_BYTES = 512 * 1024 * 1024;

/**
 * Creates an etcd client with keep-alive (so a dead member is noticed in ~40 s, not at the next
 * call's timeout) and a receive limit big enough for full-collection ranges.
 */
export function newEtcdClient(endpoints: string[]): Etcd3 {
  return new Etcd3({
    hosts: endpoints,
    grpcOptions: {
      'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 1,
    },
    dialTimeout: 5_000,
  });
}
