import { startEtcd, type EtcdProcess, type StartEtcdOptions } from './etcd-process.js';
import { freePorts } from './free-port.js';

/** An etcd child that is restarted when it dies. */
export interface SupervisedEtcd {
  /** Stays the same across restarts: the child always comes back on the same ports. */
  endpoint: string;
  /** The current child's pid (changes on restart). */
  pid(): number;
  /** How many times the child was restarted. */
  restarts(): number;
  /** Stops supervising and stops the child. */
  stop(): Promise<void>;
}

export interface SuperviseEtcdOptions extends StartEtcdOptions {
  /** First wait before a restart; doubles per consecutive failure. Default 500 ms. */
  initialBackoffMs?: number;
  /** Longest wait between restarts. Default 30 s. */
  maxBackoffMs?: number;
  /** Told about each unexpected exit and each restart attempt's outcome. */
  onEvent?: (event: { type: 'exited' | 'restarted' | 'restart-failed'; detail: string }) => void;
}

/**
 * Runs the embedded etcd and restarts it with backoff whenever it exits on its own (a crash, an
 * OOM kill, someone's SIGKILL), on the same ports and data directory, so the replica's clients
 * reconnect to the same endpoint. The backoff resets once a restarted child has stayed up for a
 * minute. readyz reports etcd as failing meanwhile (its check pings the store).
 */
export async function superviseEtcd(opts: SuperviseEtcdOptions): Promise<SupervisedEtcd> {
  const [clientPort, peerPort] =
    opts.clientPort !== undefined && opts.peerPort !== undefined ? [opts.clientPort, opts.peerPort] : await freePorts(2);
  const fixed = { ...opts, clientPort: clientPort!, peerPort: peerPort! };
  let current: EtcdProcess = await startEtcd(fixed);
  let stopped = false;
  let restarts = 0;
  let backoff = opts.initialBackoffMs ?? 500;
  let timer: NodeJS.Timeout | undefined;
  const max = opts.maxBackoffMs ?? 30_000;

  const watch = (child: EtcdProcess) => {
    const startedAt = Date.now();
    void child.exited.then((how) => {
      if (stopped || child !== current) return;
      if (Date.now() - startedAt > 60_000) backoff = opts.initialBackoffMs ?? 500;
      opts.onEvent?.({ type: 'exited', detail: `code ${how.code ?? 'none'}, signal ${how.signal ?? 'none'}` });
      schedule();
    });
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      if (stopped) return;
      try {
        current = await startEtcd(fixed);
        restarts++;
        opts.onEvent?.({ type: 'restarted', detail: `pid ${current.pid}` });
        if (stopped) return void current.stop();
        watch(current);
      } catch (err) {
        opts.onEvent?.({ type: 'restart-failed', detail: (err as Error).message.split('\n')[0]! });
        backoff = Math.min(backoff * 2, max);
        schedule();
      }
    }, backoff);
    backoff = Math.min(backoff * 2, max);
  };
  watch(current);
  return {
    endpoint: current.endpoint,
    pid: () => current.pid,
    restarts: () => restarts,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current.stop();
    },
  };
}
