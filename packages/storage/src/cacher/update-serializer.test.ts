import type { KubeObject } from '@cluster/apimachinery';
import { UpdateSerializer } from './update-serializer.js';

const obj = (rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', resourceVersion: rv } });

/** A promise with its resolve and reject outside. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('UpdateSerializer', () => {
  test('updates of one key run one at a time, in order, each given what the previous one wrote', async () => {
    const s = new UpdateSerializer();
    const log: string[] = [];
    const first = deferred<KubeObject>();
    const a = s.run('k', async (last) => {
      log.push(`a starts from ${last?.metadata.resourceVersion ?? 'nothing'}`);
      return first.promise;
    });
    const b = s.run('k', async (last) => {
      log.push(`b starts from ${last?.metadata.resourceVersion ?? 'nothing'}`);
      return obj('6');
    });
    await tick();
    expect(log).toEqual(['a starts from nothing']); // b waits for a
    first.resolve(obj('5'));
    await expect(a).resolves.toEqual(obj('5'));
    await expect(b).resolves.toEqual(obj('6'));
    expect(log).toEqual(['a starts from nothing', 'b starts from 5']);
    expect(s.size).toBe(0); // nothing kept once the key is idle
  });

  test('other keys do not wait', async () => {
    const s = new UpdateSerializer();
    const blocked = deferred<KubeObject>();
    const a = s.run('k1', () => blocked.promise);
    await expect(s.run('k2', async () => obj('2'))).resolves.toEqual(obj('2'));
    blocked.resolve(obj('1'));
    await a;
  });

  test('a failed update releases the key; the next starts from the last successful write', async () => {
    const s = new UpdateSerializer();
    const gate = deferred<KubeObject>();
    const ok = s.run('k', () => gate.promise);
    const failing = s.run('k', async () => {
      throw new Error('conflict');
    });
    const seen: Array<string | undefined> = [];
    const after = s.run('k', async (last) => {
      seen.push(last?.metadata.resourceVersion);
      return obj('8');
    });
    gate.resolve(obj('7'));
    await ok;
    await expect(failing).rejects.toThrow('conflict');
    await after;
    expect(seen).toEqual(['7']);
    expect(s.size).toBe(0);
  });

  test('a waiter gives up waiting after maxWaitMs and runs alongside (no deadlock on a nested update)', async () => {
    const s = new UpdateSerializer(20);
    const result = await s.run('k', async () => {
      // An update of the same key from inside an update would wait for itself forever.
      const inner = await s.run('k', async () => obj('3'));
      return obj(String(Number(inner.metadata.resourceVersion) + 1));
    });
    expect(result).toEqual(obj('4'));
    expect(s.size).toBe(0);
  });
});
