import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the reclaimer looks; a quiet period is one with few requests since the last look. */
const CHECK_INTERVAL_MS = 10_000;
const QUIET_REQUESTS = 50;
/**
 * A look also finds the thread busy when its event loop ran at least this share of the time since
 * the last one. Requests alone miss a thread that only writes watch streams: with worker threads
 * the writer's connection is served by one thread, and the other, fanning the changes out to its
 * share of the watchers, counted no requests; its full collections (~0.2 s each under load) then
 * held up every event to its watchers, the watch fan-out's p99.
 */
const BUSY_LOOP_SHARE = 0.05;
/** Only worth reclaiming when the heap or the process grew this much since the last time. */
const GROWTH_BYTES = 64 * 1024 * 1024;
/**
 * The young generation V8 grows for a burst (start-up included) to 32 MiB of semi-spaces, and
 * keeps: at idle it is most of the difference between the heap's size and what it holds. Past
 * this size it is given back (V8's own idle size is 1 MiB) on a quiet look.
 */
const YOUNG_GENERATION_IDLE_BYTES = 8 * 1024 * 1024;

/** Allocation size from which glibc maps pages of their own (see loadReclaimers). */
const MMAP_THRESHOLD_BYTES = 1024 * 1024;

/**
 * What the reclaimer can call, when present: V8's full collection, V8's memory-pressure collection
 * (which also shrinks the young generation) and the C allocator's trim.
 */
export interface Reclaimers {
  gc?: () => void;
  shrink?: () => void;
  trim?: () => boolean;
}

/**
 * V8's gc() (exposed for this call only) and the optional malloc_trim addon
 * (packages/server/native, built by hack/build-native.sh next to dist/src).
 */
export function loadReclaimers(): Reclaimers {
  const out: Reclaimers = {};
  // V8's flags are the process's: worker threads of one replica (`--worker-isolation=thread`)
  // toggle this one at once at start-up, and another thread's `--no-expose-gc` may land between
  // this thread's two calls (then the new context has no `gc`: a bare reference would throw and
  // end the thread while it starts). A few tries get past that.
  let gc: unknown;
  for (let attempt = 0; attempt < 5 && typeof gc !== 'function'; attempt++) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext("typeof gc === 'function' ? gc : undefined") as unknown;
    setFlagsFromString('--no-expose-gc');
  }
  if (typeof gc === 'function') {
    // V8 compacts only the pages its heuristics pick; after a burst the survivors are spread over
    // many part-empty pages that stay resident. This collection moves them all together. (The
    // flag is the process's: another worker thread's full collection meanwhile compacts too.)
    out.gc = () => {
      setFlagsFromString('--compact-on-every-full-gc');
      try {
        (gc as () => void)();
      } finally {
        setFlagsFromString('--no-compact-on-every-full-gc');
      }
    };
  }
  const malloc = mallocAddon();
  if (typeof malloc?.trim === 'function') out.trim = malloc.trim as () => boolean;
  // Buffers of 1 MiB and more (big list responses) get pages of their own that go back to the
  // system when freed, rather than glibc's rising threshold moving them into the heap.
  if (typeof malloc?.setMmapThreshold === 'function') (malloc.setMmapThreshold as (bytes: number) => boolean)(MMAP_THRESHOLD_BYTES);
  const pressure = nativeAddon('memory_pressure');
  if (pressure) {
    try {
      const mod = createRequire(import.meta.url)(pressure) as { memoryPressure?: unknown };
      // The young generation V8 grew for a burst (up to 32 MiB) stays resident until told so.
      if (typeof mod.memoryPressure === 'function') out.shrink = mod.memoryPressure as () => void;
    } catch {
      // Built for another Node: run without it.
    }
  }
  return out;
}

/**
 * Malloc arenas of a replica whose workers are threads (see limitMallocArenas): the main arena and
 * one more. Measured with the memory workload (2 threads, 100,000 ConfigMaps): replica total RSS
 * 373-381 MiB with glibc's default (up to 16 arenas on 2 cores), 366-368 with 2, 361 with 1; CPU
 * per create and cached GET unchanged in paired runs (bench README, twentieth session).
 */
export const THREAD_REPLICA_MALLOC_ARENAS = 2;

/**
 * Caps the C allocator's arenas for threads that ask for one from now on (glibc; a no-op without
 * the malloc_trim addon or on another libc). Returns whether the cap was set.
 */
export function limitMallocArenas(count: number): boolean {
  const malloc = mallocAddon();
  return typeof malloc?.setArenaMax === 'function' && (malloc.setArenaMax as (n: number) => boolean)(count);
}

/** The optional malloc_trim addon's exports, or undefined when it is not built (or built for another Node or libc). */
function mallocAddon(): { trim?: unknown; setMmapThreshold?: unknown; setArenaMax?: unknown } | undefined {
  const addon = nativeAddon('malloc_trim');
  if (!addon) return undefined;
  try {
    return createRequire(import.meta.url)(addon) as { trim?: unknown; setMmapThreshold?: unknown; setArenaMax?: unknown };
  } catch {
    return undefined;
  }
}

/** The path of an optional addon: dist/src/ -> dist/native/ when built; src/ -> dist/native/ when run from source (tests). */
export function nativeAddon(name: string): string | undefined {
  return [`../native/${name}.node`, `../dist/native/${name}.node`].map((rel) => new URL(rel, import.meta.url).pathname).find((path) => existsSync(path));
}

/**
 * The share of the time since the previous call (or since this was made) that this thread's event
 * loop spent running callbacks rather than waiting for I/O (Node's event loop utilization, which
 * each worker thread has for its own loop).
 */
export function eventLoopBusyShare(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return share;
  };
}

/**
 * Returns memory to the OS after bursts. V8 keeps the heap it grew for a large list or a watch
 * storm long after the garbage is gone, and glibc keeps memory freed in the middle of its heap
 * (the buffers of a thousand closed TLS connections, say). When the server is quiet and the heap
 * or the resident set grew, one full collection compacts the heap and a malloc_trim hands the
 * allocator's free pages back; one more follows on the next quiet look. A young generation grown
 * past its idle size (start-up grows it to the maximum) is shrunk on a quiet look too. A look is
quiet when the thread had few requests and its event loop was mostly idle since the last one.
 */
export function startMemoryReclaimer(
  requestCount: () => number,
  reclaimers: Reclaimers = loadReclaimers(),
  readMemory: () => ProcessMemory = readProcessMemory,
  intervalMs = CHECK_INTERVAL_MS,
  busyShare: () => number = eventLoopBusyShare(),
): () => void {
  const { gc, shrink, trim } = reclaimers;
  if (!gc && !shrink && !trim) return () => {};
  let lastCount = requestCount();
  let baseline = readMemory();
  // A reclaim for growth may come while the burst that caused it still holds its data (a big
  // list being written); one more on the next quiet look collects what it left behind.
  let followUp = false;
  const timer = setInterval(() => {
    const count = requestCount();
    // Both are read on every look, so that each covers the time since the previous one.
    const busy = busyShare();
    const quiet = count - lastCount < QUIET_REQUESTS && busy < BUSY_LOOP_SHARE;
    lastCount = count;
    if (!quiet) return;
    const now = readMemory();
    const grew = now.heapTotal - baseline.heapTotal > GROWTH_BYTES || now.rss - baseline.rss > GROWTH_BYTES;
    // Start-up and any burst since leave the young generation grown; only the shrink gives it back.
    const youngGrown = shrink !== undefined && (now.youngGeneration ?? 0) > YOUNG_GENERATION_IDLE_BYTES;
    if (!grew && !followUp && !youngGrown) return;
    followUp = grew;
    gc?.();
    shrink?.();
    trim?.();
    baseline = readMemory();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** What the reclaimer looks at: V8's heap size, the resident set and the young generation's size. */
export interface ProcessMemory {
  heapTotal: number;
  rss: number;
  youngGeneration?: number;
}

function readProcessMemory(): ProcessMemory {
  const { heapTotal, rss } = process.memoryUsage();
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return { heapTotal, rss, ...(young ? { youngGeneration: young.physical_space_size } : {}) };
}
