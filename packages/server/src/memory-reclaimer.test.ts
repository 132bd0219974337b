import { createRequire } from 'node:module';
import { getHeapSpaceStatistics } from 'node:v8';
import { limitMallocArenas, loadReclaimers, startMemoryReclaimer, THREAD_REPLICA_MALLOC_ARENAS, type ProcessMemory } from './memory-reclaimer.js';

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('memory reclaimer', () => {
  test('finds V8 gc and the malloc_trim addon (built by make build on glibc)', () => {
    const r = loadReclaimers();
    expect(typeof r.gc).toBe('function');
    expect(typeof r.trim).toBe('function');
    expect(typeof r.trim!()).toBe('boolean');
  });

  test('its gc compacts the old space: part-empty pages left by a burst are given up', () => {
    const r = loadReclaimers();
    const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!;
    // The test shares its heap with whatever else this worker ran: compare growth, not totals.
    r.gc!();
    const start = oldSpace().space_size;
    // Objects that survive into the old space, then three in four of them dropped: every page
    // keeps a few survivors, which a collection without compaction leaves where they are.
    let survivors = Array.from({ length: 400_000 }, (_, i) => ({ i, name: `object-${i}`, values: [i, i + 1, i + 2] }));
    r.gc!();
    r.gc!();
    const grown = oldSpace().space_size - start;
    survivors = survivors.filter((_, i) => i % 4 === 0);
    r.gc!();
    const left = oldSpace().space_size - start;
    expect(survivors).toHaveLength(100_000);
    expect(grown).toBeGreaterThan(40 * MiB);
    expect(left).toBeLessThan(grown * 0.6);
  });

  test('the memory-pressure addon gives back the young generation a burst grew', () => {
    const r = loadReclaimers();
    expect(typeof r.shrink).toBe('function');
    const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;
    // Survivors of many scavenges make V8 grow the young generation.
    let keep: unknown[] = [];
    for (let round = 0; round < 40; round++) {
      keep = Array.from({ length: 20_000 }, (_, i) => ({ i, s: `value-${round}-${i}` }));
    }
    const grown = newSpace();
    expect(grown).toBeGreaterThan(4 * MiB);
    // A full collection alone keeps it.
    r.gc!();
    expect(newSpace()).toBe(grown);
    r.shrink!();
    expect(keep).toHaveLength(20_000);
    expect(newSpace()).toBeLessThan(grown / 2);
  });

  test('the addon sets glibc\'s mmap threshold to a positive size and refuses anything else', () => {
    const addon = createRequire(import.meta.url)(new URL('../dist/native/malloc_trim.node', import.meta.url).pathname) as {
      setMmapThreshold(bytes: number): boolean;
    };
    expect(addon.setMmapThreshold(1024 * 1024)).toBe(true);
    expect(addon.setMmapThreshold(0)).toBe(false);
    expect(addon.setMmapThreshold(-5)).toBe(false);
    expect(addon.setMmapThreshold(2 ** 40)).toBe(false);
  });

  test('the addon caps glibc\'s malloc arenas at a positive count and refuses anything else', () => {
    const addon = createRequire(import.meta.url)(new URL('../dist/native/malloc_trim.node', import.meta.url).pathname) as {
      setArenaMax(count: unknown): boolean;
    };
    expect(addon.setArenaMax(0)).toBe(false);
    expect(addon.setArenaMax(-1)).toBe(false);
    expect(addon.setArenaMax(1 << 20)).toBe(false);
    expect(addon.setArenaMax('2')).toBe(false);
    // What the replica's primary sets before its worker threads start.
    expect(limitMallocArenas(THREAD_REPLICA_MALLOC_ARENAS)).toBe(true);
  });

  test.each([
    ['the heap grew and requests are few', { heapTotal: 200 * MiB, rss: 300 * MiB }, 0, 2],
    ['the resident set grew (native memory) and requests are few', { heapTotal: 100 * MiB, rss: 400 * MiB }, 0, 2],
    ['nothing grew much', { heapTotal: 120 * MiB, rss: 330 * MiB }, 0, 0],
    ['it grew but the server is busy', { heapTotal: 200 * MiB, rss: 400 * MiB }, 1000, 0],
    // Shrunk on the first quiet look (the stub's shrink brings it to 1 MiB), and not again.
    ['the young generation is grown (start-up) and requests are few', { heapTotal: 120 * MiB, rss: 330 * MiB, youngGeneration: 32 * MiB }, 0, 1],
    ['the young generation is at its idle size', { heapTotal: 120 * MiB, rss: 330 * MiB, youngGeneration: 1 * MiB }, 0, 0],
    ['the young generation is grown but the server is busy', { heapTotal: 120 * MiB, rss: 330 * MiB, youngGeneration: 32 * MiB }, 1000, 0],
    // A worker thread writing its watchers' events while another thread serves the writes.
    ['it grew and requests are few but the event loop is busy', { heapTotal: 200 * MiB, rss: 400 * MiB }, 0, 0, 0.3],
    ['the young generation is grown and requests are few but the event loop is busy', { heapTotal: 120 * MiB, rss: 330 * MiB, youngGeneration: 32 * MiB }, 0, 0, 0.3],
  ])('reclaims when %s', async (_name, grown, requestsPerTick, expectedCalls, loopBusy = 0.001) => {
    let memory: ProcessMemory = { heapTotal: 100 * MiB, rss: 300 * MiB };
    let requests = 0;
    let calls = 0;
    let looks = 0;
    const stop = startMemoryReclaimer(
      () => {
        looks++;
        return (requests += requestsPerTick);
      },
      {
        gc: () => calls++,
        shrink: () => {
          if (memory.youngGeneration !== undefined) memory = { ...memory, youngGeneration: 1 * MiB };
        },
        trim: () => true,
      },
      () => memory,
      10,
      () => loopBusy,
    );
    memory = grown;
    // Counted in the reclaimer's own looks, not in wall time: a starved machine delays its timer.
    for (let waited = 0; looks < 8 && waited < 10_000; waited += 10) await sleep(10);
    stop();
    // Growth: a reclaim and one follow-up; then the baseline is the new reading, no repeat.
    expect(calls).toBe(expectedCalls);
  });
});
