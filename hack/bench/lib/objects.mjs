// ConfigMaps of the benchmark (1 KiB of data each) and raw etcd helpers that write them in the
// shape the server stores: the object JSON without metadata.resourceVersion under
// /registry/core/configmaps/<namespace>/<name>.
import { randomUUID } from 'node:crypto';
import { prefixEnd } from './keys.mjs';

/** 1,024 characters of data, not one repeated byte so nothing downstream can shortcut it. */
export const PAYLOAD_1K = Array.from({ length: 1024 }, (_, i) =>
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_'.charAt((i * 37 + (i >> 6)) % 64),
).join('');

/** The etcd key prefix of a namespace's ConfigMaps. */
export function configMapPrefix(namespace) {
  return `/registry/core/configmaps/${namespace}/`;
}

/** A ConfigMap as a client sends it on create. */
export function configMapBody(namespace, name, extraData = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { ...extraData, payload: PAYLOAD_1K } };
}

/**
 * The bytes the server would store for a created ConfigMap; with `managedFields`, also the
 * managedFields entry a create through the API records (the server's own order of fields).
 */
export function storedConfigMapBytes(namespace, name, { managedFields = false } = {}) {
  const creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const metadata = { name, namespace, uid: randomUUID(), creationTimestamp };
  if (managedFields) {
    metadata.managedFields = [
      { manager: 'bench', operation: 'Update', apiVersion: 'v1', time: creationTimestamp, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:payload': {} } } },
    ];
  }
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { payload: PAYLOAD_1K } };
  return Buffer.from(JSON.stringify(obj));
}

/** Object names `<prefix>-000000` ... so they sort like creation order. */
export function objectName(prefix, i) {
  return `${prefix}-${String(i).padStart(6, '0')}`;
}

/**
 * Puts `count` server-shaped ConfigMaps into etcd directly (batches of 100 puts per transaction,
 * a few transactions in flight), bypassing the API for speed. Returns the total JSON bytes.
 */
export async function putStoredConfigMaps(etcd, namespace, namePrefix, count, { batch = 100, concurrency = 8, managedFields = false } = {}) {
  let totalBytes = 0;
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const from = next;
      const to = Math.min(count, from + batch);
      next = to;
      const success = [];
      for (let i = from; i < to; i++) {
        const name = objectName(namePrefix, i);
        const value = storedConfigMapBytes(namespace, name, { managedFields });
        totalBytes += value.length;
        success.push({ request_put: { key: Buffer.from(configMapPrefix(namespace) + name), value } });
      }
      await etcd.kv.txn({ compare: [], success, failure: [] });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return totalBytes;
}

/** Deletes every key under `prefix` in etcd directly; returns how many were deleted. */
export async function deletePrefix(etcd, prefix) {
  const key = Buffer.from(prefix);
  const res = await etcd.kv.deleteRange({ key, range_end: prefixEnd(key) });
  return Number(res.deleted);
}

/**
 * Compacts etcd's history up to now and waits until the backend has dropped it. A range delete
 * of thousands of keys leaves etcd 3.4 several times slower per transaction until the next
 * compaction, which a running cluster gets every few minutes (every replica's compactor) and a
 * three-minute benchmark otherwise never sees; the workloads after such a delete start from the
 * state a compacted etcd is in.
 */
export async function compactNow(etcd) {
  const { header } = await etcd.kv.range({ key: Buffer.from('/'), count_only: true });
  await etcd.kv.compact({ revision: header.revision, physical: true });
}
