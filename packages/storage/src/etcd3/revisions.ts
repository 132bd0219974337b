import type { IRangeRequest, IRangeResponse, ITxnRequest, ITxnResponse } from 'etcd3';
import { StorageError } from '../errors.js';
import { encodeContinue } from './continue-token.js';
import { prefixEnd } from './keys.js';
import { progressRequestsAreSafe } from './raw-watch.js';
import { RevisionBatcher } from './revision-batcher.js';

/** How long a read for a revision newer than etcd's waits before 504 (upstream's cacher uses 3 s). */
const FRESHNESS_WAIT_MS = 3_000;

/** The etcd requests {@link StoreRevisions} is made of, sent through the store (timed, errors translated). */
export interface RevisionRequests {
  range(req: IRangeRequest, key: string): Promise<IRangeResponse>;
  /** A read-only transaction, timed as a count. */
  countTxn(req: ITxnRequest, key: string): Promise<ITxnResponse>;
  /** The etcd member's status (its version). */
  status(): Promise<{ version: string }>;
}

/**
 * What an Etcd3Store knows and proves about etcd's revisions: the current one, whether an older
 * one is still readable, whether a newer one is reached, whether a prefix changed since one, and
 * whether progress notifications can be trusted.
 */
export class StoreRevisions {
  private progressSafe: Promise<boolean> | undefined;
  /** Concurrent reads of the current revision share one etcd request (see RevisionBatcher). */
  private readonly batcher = new RevisionBatcher(() => this.readCurrent());

  constructor(private readonly etcd: RevisionRequests) {}

  /**
   * etcd's current revision, from a linearizable read sent after this call: it covers every write
   * acknowledged before the call, by any replica. Concurrent callers share requests.
   */
  current(): Promise<number> {
    return this.batcher.read();
  }

  /** How many etcd requests {@link current} sent (callers that shared one count once). */
  get readsSent(): number {
    return this.batcher.sent;
  }

  private async readCurrent(): Promise<number> {
    const res = await this.etcd.range({ key: Buffer.from('/registry/health-probe'), count_only: true }, '');
    return Number(res.header.revision);
  }

  /**
   * Throws StorageError Compacted when etcd no longer has `revision`, and TooLargeResourceVersion
   * when it does not reach it within the wait (3 s).
   */
  async check(prefix: string, revision: number): Promise<void> {
    const k = Buffer.from(prefix);
    const deadline = Date.now() + FRESHNESS_WAIT_MS;
    for (;;) {
      try {
        await this.etcd.range({ key: k, revision, count_only: true }, prefix);
        return;
      } catch (e) {
        if (e instanceof StorageError && e.code === 'Compacted') {
          throw new StorageError('Compacted', prefix, 'The resourceVersion for the provided watch is too old.');
        }
        if (!(e instanceof StorageError && e.code === 'TooLargeResourceVersion')) throw e;
        if (Date.now() >= deadline) {
          const current = await this.current();
          throw new StorageError('TooLargeResourceVersion', prefix, `Too large resource version: ${revision}, current: ${current}`, current);
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Throws StorageError Compacted when etcd no longer has `revision` (a cheap one-key, count-only,
   * member-local read). For a continue token served from a cache snapshot: the answer must stay
   * 410 once etcd compacted the token's revision, as it is for a token read from etcd. The error
   * carries a token that continues after `startRelative` at the latest revision, as getList's does.
   */
  async assertAvailable(prefix: string, revision: number, startRelative: string): Promise<void> {
    try {
      await this.etcd.range({ key: Buffer.from(prefix), revision, count_only: true, serializable: true }, prefix);
    } catch (e) {
      if (e instanceof StorageError && e.code === 'Compacted') e.continueToken = encodeContinue(-1, startRelative);
      throw e;
    }
  }

  /** A linearizable range whose header revision is at least minRevision, waiting briefly if needed. */
  async rangeNotOlderThan(req: IRangeRequest, minRevision: number, key: string): Promise<IRangeResponse> {
    const deadline = Date.now() + FRESHNESS_WAIT_MS;
    for (;;) {
      const res = await this.etcd.range(req, key);
      const rev = Number(res.header.revision);
      if (rev >= minRevision) return res;
      if (Date.now() >= deadline) {
        throw new StorageError('TooLargeResourceVersion', key, 'resource version is newer than the store', rev);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Whether the etcd member answers progress requests in order with the events they cover (see
   * progressRequestsAreSafe); asked once, false when the version cannot be read.
   */
  progressRequestsSafe(): Promise<boolean> {
    this.progressSafe ??= this.etcd.status().then(
      (s) => progressRequestsAreSafe(s.version),
      () => {
        this.progressSafe = undefined;
        return false;
      },
    );
    return this.progressSafe;
  }

  /**
   * In one linearizable read: etcd's current revision, how many keys are under `prefix`, and
   * whether any of them was written after `afterRevision` (changedSince 0 or 1). Lets a watch cache at `afterRevision` prove
   * its state of the prefix is the current one without waiting for a progress notification: no
   * key written since and the same count means nothing was created, changed or deleted.
   */
  async countChangesSince(prefix: string, afterRevision: number): Promise<{ revision: number; count: number; changedSince: number }> {
    const key = Buffer.from(prefix);
    const range_end = prefixEnd(key);
    const res = await this.etcd.countTxn(
      {
        compare: [],
        success: [
          { request_range: { key, range_end, count_only: true } },
          // A count ignores the revision filters (etcd counts before filtering): ask for one key.
          { request_range: { key, range_end, keys_only: true, limit: 1, min_mod_revision: String(afterRevision + 1) } },
        ],
        failure: [],
      },
      prefix,
    );
    return {
      revision: Number(res.header.revision),
      count: Number(res.responses[0]?.response_range.count ?? 0),
      changedSince: res.responses[1]?.response_range.kvs.length ?? 0,
    };
  }
}

/** Parses a resourceVersion string into a revision; '' and '0' are 0. Throws InvalidError otherwise. */
export function parseRevision(rv: string | undefined): number {
  if (rv === undefined || rv === '' || rv === '0') return 0;
  if (!/^[0-9]+$/.test(rv)) throw new StorageError('InvalidError', '', `invalid resource version: ${rv}`);
  const n = Number(rv);
  if (!Number.isSafeInteger(n)) throw new StorageError('InvalidError', '', `invalid resource version: ${rv}`);
  return n;
}
