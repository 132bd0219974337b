import type { CachedStore } from '@cluster/storage';

/** The post-start hooks readyz reports (`poststarthook/<name>`) until each has run (SPEC 4.9). */
export const POST_START_HOOKS = ['start-system-namespaces-controller', 'rbac/bootstrap-roles', 'informer-sync', 'bootstrap-controller'] as const;
export type PostStartHook = (typeof POST_START_HOOKS)[number];

interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

/** The livez and readyz checks of a replica, and the switches the other stages turn. */
export interface Health {
  livez: HealthCheck[];
  readyz: HealthCheck[];
  hookDone(name: PostStartHook): void;
  /** readyz fails from now on (check `shutdown`). */
  shuttingDown(): void;
}

/**
 * livez: ping, and etcd once --livez-grace-period has passed since start (while starting, a
 * failing etcd does not make the process "dead"). readyz: ping, etcd, the post-start hooks, shutdown.
 */
export function buildHealth(store: CachedStore, livezGracePeriodMs: number): Health {
  const startedAt = Date.now();
  const done = new Set<PostStartHook>();
  let stopping = false;
  const ping = { name: 'ping', check: async () => {} };
  const etcdLiveness = {
    name: 'etcd',
    check: async () => {
      try {
        await store.ping();
      } catch (e) {
        if (Date.now() - startedAt >= livezGracePeriodMs) throw e;
      }
    },
  };
  const hooks = POST_START_HOOKS.map((name) => ({
    name: `poststarthook/${name}`,
    check: async () => {
      if (!done.has(name)) throw new Error('not finished');
    },
  }));
  const shutdown = {
    name: 'shutdown',
    check: async () => {
      if (stopping) throw new Error('process is shutting down');
    },
  };
  return {
    livez: [ping, etcdLiveness],
    readyz: [ping, { name: 'etcd', check: () => store.ping() }, ...hooks, shutdown],
    hookDone: (name) => done.add(name),
    shuttingDown: () => (stopping = true),
  };
}
