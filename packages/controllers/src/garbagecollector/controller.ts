import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS, type KubeObject } from '@cluster/apimachinery';
import { untilSynced } from '../client/informer.js';
import type { ControllerContext } from '../index.js';
import { WorkQueue } from '../workqueue/queue.js';
import { Collector } from './collector.js';
import { resourceKey, type GcResource } from './discover.js';
import { DependencyGraph, nodeOf, type GraphChanges } from './graph.js';
import { Monitors } from './monitors.js';

export interface GarbageCollectorOptions {
  /** How often discovery is read again besides on CRD and APIService changes (30 s, upstream's period). */
  resyncMs?: number;
  /** The longest wait for the informers' first lists before collecting starts (60 s). */
  syncTimeoutMs?: number;
  /** Objects looked at at once by the attempt-to-delete queue (8; upstream's --concurrent-gc-syncs is 20). */
  workers?: number;
}

/** Resources whose changes change discovery: a new read follows shortly after each. */
const DISCOVERY_SOURCES = new Set(['apiextensions.k8s.io/customresourcedefinitions', 'apiregistration.k8s.io/apiservices']);
const DISCOVERY_DEBOUNCE_MS = 500;

/**
 * The garbage collector (upstream's `garbagecollector` controller): a dependency graph of every
 * object of every deletable resource, built from metadata-only informers over discovery (custom
 * resources included, kept current as definitions come and go), and two work queues over it:
 * attempt-to-delete (dependents whose owners are gone or deleting in the foreground, and owners
 * waiting for their blocking dependents) and attempt-to-orphan (owners deleted with Orphan).
 * Runs while this replica leads; all state is rebuilt from lists when it leads again.
 */
export async function runGarbageCollector(ctx: ControllerContext, signal: AbortSignal, opts: GarbageCollectorOptions = {}): Promise<void> {
  const graph = new DependencyGraph();
  const workers = opts.workers ?? 8;
  const deleteQueue = new WorkQueue({ name: 'garbage_collector_attempt_to_delete', metrics: ctx.metrics, logger: ctx.logger, workers });
  const orphanQueue = new WorkQueue({ name: 'garbage_collector_attempt_to_orphan', metrics: ctx.metrics, logger: ctx.logger, workers: Math.min(workers, 2) });
  const enqueue = (c: GraphChanges) => {
    c.attemptToDelete.forEach((u) => deleteQueue.add(u));
    c.attemptToOrphan.forEach((u) => orphanQueue.add(u));
  };
  const syncError = () => ctx.metrics?.gcResourcesSyncErrors.inc();
  let discoveryTimer: NodeJS.Timeout | undefined;
  const monitors = new Monitors(ctx.client, ctx.logger, {
    onEvent(res: GcResource, type, obj: KubeObject, previous: KubeObject | undefined) {
      const uid = obj.metadata.uid ?? '';
      if (type === 'DELETED') {
        enqueue(graph.remove(uid));
      } else {
        // A delete and re-create within one relist comes as a change of uid: the old one is gone.
        const before = previous?.metadata.uid;
        if (before !== undefined && before !== uid) enqueue(graph.remove(before));
        enqueue(graph.upsert(nodeOf(res, obj)));
      }
      if (DISCOVERY_SOURCES.has(resourceKey(res))) scheduleDiscovery();
    },
    onDropped(res) {
      graph.dropResource(res.group, res.resource);
    },
    onSyncError: syncError,
    // Informers keep an entry only for what the graph may need to see go: objects with owners,
    // with dependents, or deleting under a collector finalizer. Unrelated objects cost nothing.
    holds(obj) {
      const m = obj.metadata;
      if ((m.ownerReferences?.length ?? 0) > 0 || graph.hasDependents(m.uid ?? '')) return true;
      return !!m.deletionTimestamp && (m.finalizers ?? []).some((f) => f === FINALIZER_ORPHAN_DEPENDENTS || f === FINALIZER_DELETE_DEPENDENTS);
    },
    // A watch gap may have hidden the removal of an owner not held: its possible dependents
    // (those naming an owner of this kind) check their owners.
    onRelisted(res) {
      const uids = graph.withOwners({ group: res.group, kind: res.kind });
      ctx.logger.info({ resource: resourceKey(res), dependents: uids.length }, 'garbage collector: relisted; checking the dependents of its kind');
      uids.forEach((u) => deleteQueue.add(u));
    },
  });

  // Discovery is read again on a timer and shortly after definitions change, one read at a time.
  let syncing: Promise<void> | undefined;
  let again = false;
  const syncMonitors = (): Promise<void> => {
    if (syncing) {
      again = true;
      return syncing;
    }
    syncing = (async () => {
      do {
        again = false;
        await monitors.sync(signal);
      } while (again && !signal.aborted);
    })().finally(() => (syncing = undefined));
    return syncing;
  };
  function scheduleDiscovery(): void {
    if (signal.aborted) return;
    clearTimeout(discoveryTimer);
    discoveryTimer = setTimeout(() => void syncMonitors(), DISCOVERY_DEBOUNCE_MS);
  }
  const resync = setInterval(() => void syncMonitors(), opts.resyncMs ?? 30_000);
  resync.unref();
  const collector = new Collector(ctx.client, graph, monitors, ctx.logger, (uid) => deleteQueue.add(uid));

  try {
    await syncMonitors();
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), opts.syncTimeoutMs ?? 60_000);
    const stopWaiting = () => timeout.abort();
    signal.addEventListener('abort', stopWaiting, { once: true });
    const synced = await untilSynced(monitors.synced(), timeout.signal);
    clearTimeout(timer);
    signal.removeEventListener('abort', stopWaiting);
    if (signal.aborted) return;
    if (!synced) {
      ctx.logger.warn('garbage collector: timed out waiting for the first lists; collecting anyway');
      syncError();
    }
    ctx.logger.info({ resources: monitors.count, objects: graph.size }, 'garbage collector: graph built');
    await Promise.all([
      deleteQueue.run((uid) => collector.attemptToDelete(uid), signal),
      orphanQueue.run((uid) => collector.attemptToOrphan(uid), signal),
    ]);
  } finally {
    clearInterval(resync);
    clearTimeout(discoveryTimer);
    await monitors.stop();
  }
}
