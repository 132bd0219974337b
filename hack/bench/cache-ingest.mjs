// CPU and heap a watch cache spends on etcd events it did not write (what a worker pays for every
// create another worker makes): `node hack/bench/cache-ingest.mjs [--events=20000] [--rounds=5]
// [--main=<packages/storage/dist/src/index.js of another build>] [--watch]`.
//
// No etcd: a store's raw watch reads WatchResponses from a fake stream, each with one put of a
// ConfigMap shaped as the API stores it (managed fields, 1 KiB of data), into a Cacher of the
// ConfigMaps, as the etcd watch of a worker's cache does. Prints CPU µs per event (user + system of
// this process, garbage collection included) and the heap after each round. `--watch` adds one
// client watcher of the whole collection (as a controller's) that takes every event's object.
import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { PAYLOAD_1K } from './lib/objects.mjs';
import { arg } from './lib/script-args.mjs';

const EVENTS = Number(arg('events', '20000'));
const ROUNDS = Number(arg('rounds', '5'));
const WATCH = process.argv.includes('--watch');
const storage = await import(resolve(arg('main', new URL('../../packages/storage/dist/src/index.js', import.meta.url).pathname)));
const { Etcd3Store, Cacher, newEtcdClient } = storage;

const PREFIX = '/registry/core/configmaps/';

function storedBytes(ns, name) {
  const time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const obj = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: ns,
      uid: randomUUID(),
      creationTimestamp: time,
      managedFields: [
        { manager: 'bench', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:payload': {} } } },
      ],
    },
    data: { payload: PAYLOAD_1K },
  };
  return Buffer.from(JSON.stringify(obj));
}

class FakeStream extends EventEmitter {
  write() {}
  end() {}
  cancel() {}
}
let stream;
const source = {
  async watch() {
    stream = new FakeStream();
    return stream;
  },
};
// The etcd client is never connected: only the fake watch source is used.
const client = newEtcdClient(['127.0.0.1:1']);
const store = new Etcd3Store(client, { watch: source });
let revision = 1;
const cacherSource = {
  async listEntries() {
    return { entries: [], revision: 1 };
  },
  watchChanges: (prefix, from, sink) => store.watchChanges(prefix, from, sink),
  async currentRevision() {
    return revision;
  },
};
const cacher = new Cacher(cacherSource, PREFIX, { bookmarkIntervalMs: 3_600_000 });
cacher.start();
await cacher.waitReady();
while (!stream) await new Promise((r) => setTimeout(r, 5));
stream.emit('data', { header: { revision: '1' }, created: true, canceled: false, compact_revision: '0', events: [] });

let seen = 0;
if (WATCH) {
  const w = await cacher.watch(PREFIX, { resourceVersion: '1', signal: new AbortController().signal });
  w.onReady(() => {
    for (const ev of w.takeReady(1_000_000)) if (ev.object.metadata.name) seen++;
  });
}

const header = (rev) => ({ cluster_id: '1', member_id: '1', revision: String(rev), raft_term: '2' });
function response(ns, name, value, rev) {
  const key = Buffer.from(`${PREFIX}${ns}/${name}`);
  return {
    header: header(rev),
    watch_id: '0',
    created: false,
    canceled: false,
    compact_revision: '0',
    cancel_reason: '',
    fragment: false,
    events: [{ type: 'Put', kv: { key, value, create_revision: String(rev), mod_revision: String(rev), version: '1', lease: '0' } }],
  };
}

const micros = (u) => (u.user + u.system);
for (let round = 0; round < ROUNDS; round++) {
  // The messages are made before the clock starts (in the server they come off the wire).
  const batch = [];
  for (let i = 0; i < EVENTS; i++) {
    const rev = ++revision;
    const ns = `ns-${i % 8}`;
    const name = `cm-${round}-${i}`;
    batch.push(response(ns, name, storedBytes(ns, name), rev));
  }
  const start = process.cpuUsage();
  for (let i = 0; i < batch.length; i++) {
    stream.emit('data', batch[i]);
    batch[i] = undefined;
    // Let watchers' turns run now and then, as the event loop would between messages.
    if (WATCH && i % 64 === 63) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setImmediate(r));
  const used = micros(process.cpuUsage(start));
  const heap = process.memoryUsage();
  console.log(
    `round ${round}: ${(used / EVENTS).toFixed(2)} µs CPU per event; cache ${cacher.objectCount} objects at ${cacher.revision}; ` +
      `heap used ${(heap.heapUsed / 2 ** 20).toFixed(0)} MiB, external ${(heap.external / 2 ** 20).toFixed(0)} MiB${WATCH ? `; watcher took ${seen}` : ''}`,
  );
}
await cacher.close();
client.close();
