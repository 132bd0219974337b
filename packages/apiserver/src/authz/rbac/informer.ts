import type { KubeObject, Status } from '@cluster/apimachinery';
import type { GenericRegistry } from '../../registry/generic-registry.js';

/** What an informer tells its owner. */
export interface InformerHandler {
  /** The full current state after a (re)list. */
  replace(objs: KubeObject[]): void;
  upsert(obj: KubeObject): void;
  remove(obj: KubeObject): void;
}

export interface InformerOptions {
  /** Logged, not thrown: the loop keeps going. */
  log?: (msg: string, err?: unknown) => void;
  /** Wait before retrying after an error (ms). */
  retryMs?: number;
}

/**
 * List-then-watch of one resource through its registry, kept running until `signal` aborts:
 * resumes from the last resourceVersion seen when a watch ends, and relists on 410 Gone (or any
 * other watch error). Resolves `synced` after the first list was handed to `handler.replace`.
 */
export function runInformer(
  registry: () => GenericRegistry,
  handler: InformerHandler,
  signal: AbortSignal,
  opts: InformerOptions = {},
): { synced: Promise<void> } {
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  const retryMs = opts.retryMs ?? 1000;
  void (async () => {
    let rv: string | undefined;
    while (!signal.aborted) {
      try {
        const reg = registry();
        if (rv === undefined) {
          const list = await reg.list('', { hasSelector: false });
          handler.replace(list.items);
          rv = list.metadata.resourceVersion;
          markSynced();
        }
        const stream = await reg.watch('', { resourceVersion: rv, allowBookmarks: true, signal });
        for await (const ev of stream) {
          if (ev.type === 'ERROR') {
            // 410 Gone (or anything else): start over from a fresh list.
            opts.log?.(`watch of ${reg.info.resource} ended: ${(ev.object as unknown as Status).message ?? ''}`);
            rv = undefined;
            break;
          }
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') handler.upsert(ev.object);
          else if (ev.type === 'DELETED') handler.remove(ev.object);
          rv = ev.object.metadata?.resourceVersion ?? String(ev.revision);
        }
      } catch (e) {
        if (signal.aborted) break;
        if ((e as { status?: Status }).status?.code === 410) rv = undefined;
        opts.log?.('informer error', e);
        await sleep(retryMs, signal);
      }
    }
  })();
  return { synced };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}
