import { Etcd3, GRPCUnavailableError } from 'etcd3';
import { ExponentialBackoff, handleWhen, noop, retry } from 'cockatiel';

/** gRPC receive limit: large enough for a whole range of tens of thousands of objects. */
const MAX_RECEIVE_BYTES = 512 * 1024 * 1024;

/**
 * Creates an etcd client with keep-alive (so a dead member is noticed in ~40 s while a call waits
 * on it, not at the call's timeout) and a receive limit big enough for full-collection ranges.
 *
 * The client's default fault handling retries "recoverable" errors three times and then opens a
 * per-host circuit breaker for five seconds; one oversized request (RESOURCE_EXHAUSTED) would then
 * fail every request of the replica for five seconds. We retry only when etcd is unavailable and
 * never open a breaker: a failed request fails alone.
 *
 * Keep-alive PINGs go out only while a call is open: etcd counts a PING on a connection without
 * one as a strike and closes the connection at the third (GOAWAY "too_many_pings"; grpc-js then
 * logs "rejected by server because of excess pings" and doubles its interval). Since the watch
 * cache's watches moved to the lean client (watch-client.ts), this client's connection is mostly
 * idle. `keepAliveMs` (default 30 s) is for tests.
 */
export function newEtcdClient(endpoints: string[], opts: { keepAliveMs?: number } = {}): Etcd3 {
  return new Etcd3({
    hosts: endpoints,
    grpcOptions: {
      'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
      'grpc.keepalive_time_ms': opts.keepAliveMs ?? 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 0,
    },
    dialTimeout: 5_000,
    faultHandling: {
      host: () => noop,
      global: retry(
        handleWhen((e) => e instanceof GRPCUnavailableError),
        { maxAttempts: 2, backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 500 }) },
      ),
    },
  });
}
