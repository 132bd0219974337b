import {
  flowControlBootstrap,
  type FlowSchema,
  type PriorityLevelConfiguration,
} from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import { sortFlowSchemas, type ClassifiedRequest } from './classify.js';
import { compileFlowSchema } from './compiled-schema.js';
import { QueueSet, type QueuedRequest, type RejectReason } from './queue-set.js';
import { dealHand, flowHash } from './shuffle-sharding.js';
import type { FlowControlMetrics, Pair } from './metrics.js';

/** One priority level as this replica runs it. */
export interface LevelState {
  name: string;
  uid: string;
  exempt: boolean;
  /** Seats from the server's total by the level's share. */
  nominalSeats: number;
  /** The level's nominal share of the server: its shares over all limited levels' (1 when exempt). */
  share: number;
  queueSet?: QueueSet;
  handSize: number;
  deckSize: number;
}

/** A flow schema as this replica runs it: compiled rules, its level, its hands by flow, its figures. */
interface SchemaEntry {
  name: string;
  uid: string;
  level: LevelState;
  distinguisher: 'ByUser' | 'ByNamespace' | '';
  matches: (user: UserInfo, req: ClassifiedRequest) => boolean;
  hands: Map<string, number[]>;
  stats?: Pair;
}

/** What classification found: the schema, its level, and the request's flow within the schema. */
export interface Classification {
  flowSchema: string;
  flowSchemaUid: string;
  level: LevelState;
  distinguisher: string;
  entry: SchemaEntry;
}

export interface FlowControlOptions {
  apiDomain: string;
  /** --max-requests-inflight + --max-mutating-requests-inflight: the seats divided among the levels. */
  serverConcurrencyLimit: number;
  /** How long a request may wait in a queue (upstream: a quarter of --request-timeout). */
  queueWaitLimitMs: number;
  metrics?: FlowControlMetrics;
  now?: () => number;
}

/** A request's admission: its seats are held until `done` is called. */
export interface Ticket {
  done(): void;
}

/** Thrown (never a StatusError: the filter maps it) when a request is not admitted. */
export class RejectedRequest extends Error {
  constructor(readonly reason: RejectReason) {
    super(`request rejected by priority and fairness: ${reason}`);
  }
}

const HAND_CACHE_LIMIT = 10_000;

/** The seats of a dispatched request, given back once by `done`. */
class SeatTicket implements Ticket {
  constructor(
    private readonly qs: QueueSet,
    private readonly req: QueuedRequest,
    private readonly stats: Pair | undefined,
    private readonly now: () => number,
  ) {}

  done(): void {
    if (this.req.state !== 'executing') return;
    if (this.stats) this.stats.executing--;
    this.qs.finish(this.req, this.now());
  }
}

/**
 * The API priority and fairness state of one replica (upstream's apf controller): the digested
 * configuration (flow schemas in matching order, priority levels with their seats and queue sets),
 * classification, and admission through each level's queue set. The configuration comes from the
 * stored objects; the mandatory `exempt` and `catch-all` objects apply even while missing, as
 * upstream's. Queue sets survive configuration changes, so waiting requests keep their places.
 */
export class FlowControl {
  private schemas: SchemaEntry[] = [];
  private levels = new Map<string, LevelState>();
  private readonly now: () => number;

  constructor(private readonly opts: FlowControlOptions) {
    this.now = opts.now ?? (() => performance.now());
    const b = flowControlBootstrap(opts.apiDomain);
    this.setConfig([...b.mandatoryFlowSchemas, ...b.suggestedFlowSchemas], [...b.mandatoryPriorityLevels, ...b.suggestedPriorityLevels]);
  }

  /** Replaces the configuration (any order; invalid or dangling entries are skipped as upstream does). */
  setConfig(flowSchemas: readonly FlowSchema[], priorityLevels: readonly PriorityLevelConfiguration[]): void {
    const b = flowControlBootstrap(this.opts.apiDomain);
    const pls = new Map(priorityLevels.map((pl) => [pl.metadata.name ?? '', pl]));
    for (const m of b.mandatoryPriorityLevels) if (!pls.has(m.metadata.name!)) pls.set(m.metadata.name!, m);
    const fss = new Map(flowSchemas.map((fs) => [fs.metadata.name ?? '', fs]));
    for (const m of b.mandatoryFlowSchemas) if (!fss.has(m.metadata.name!)) fss.set(m.metadata.name!, m);
    let totalShares = 0;
    for (const pl of pls.values()) if (pl.spec?.type === 'Limited') totalShares += Math.max(1, pl.spec.limited?.assuredConcurrencyShares ?? 30);
    const next = new Map<string, LevelState>();
    const nowMs = this.now();
    for (const [name, pl] of pls) {
      const exempt = pl.spec?.type === 'Exempt';
      const old = this.levels.get(name);
      const uid = pl.metadata.uid ?? '';
      if (exempt) {
        next.set(name, { name, uid, exempt, nominalSeats: 0, share: 1, handSize: 0, deckSize: 0 });
        continue;
      }
      const l = pl.spec?.limited;
      const shares = Math.max(1, l?.assuredConcurrencyShares ?? 30);
      const nominalSeats = Math.max(1, Math.ceil((this.opts.serverConcurrencyLimit * shares) / Math.max(1, totalShares)));
      const q = l?.limitResponse?.type === 'Queue' ? l.limitResponse.queuing : undefined;
      const config = { concurrencyLimit: nominalSeats, queues: q?.queues ?? 0, handSize: q?.handSize ?? 0, queueLengthLimit: q?.queueLengthLimit ?? 0 };
      let queueSet = old?.queueSet;
      if (queueSet) queueSet.setConfig(config, nowMs);
      else queueSet = new QueueSet(config, nowMs);
      next.set(name, { name, uid, exempt, nominalSeats, share: shares / Math.max(1, totalShares), queueSet, handSize: config.handSize, deckSize: config.queues });
    }
    this.levels = next;
    const entries: SchemaEntry[] = [];
    for (const fs of sortFlowSchemas([...fss.values()])) {
      const level = next.get(fs.spec?.priorityLevelConfiguration?.name ?? '');
      // A dangling schema is skipped, as upstream's.
      if (!level) continue;
      const name = fs.metadata.name ?? '';
      const dm = fs.spec?.distinguisherMethod?.type;
      entries.push({
        name,
        uid: fs.metadata.uid ?? '',
        level,
        distinguisher: dm === 'ByUser' || dm === 'ByNamespace' ? dm : '',
        matches: compileFlowSchema(fs),
        hands: new Map(),
        stats: this.opts.metrics?.pair(level.name, name),
      });
    }
    this.schemas = entries;
    this.opts.metrics?.setLevels([...next.values()]);
  }

  /** The schema and level of a request; undefined only if even catch-all cannot be used. */
  classify(user: UserInfo, req: ClassifiedRequest): Classification | undefined {
    for (const e of this.schemas) {
      if (!e.matches(user, req)) continue;
      const distinguisher = e.distinguisher === 'ByUser' ? user.username : e.distinguisher === 'ByNamespace' ? req.namespace : '';
      return { flowSchema: e.name, flowSchemaUid: e.uid, level: e.level, distinguisher, entry: e };
    }
    return undefined;
  }

  private handOf(c: Classification): number[] {
    const hands = c.entry.hands;
    let hand = hands.get(c.distinguisher);
    if (!hand) {
      if (hands.size >= HAND_CACHE_LIMIT) hands.clear();
      hand = dealHand(flowHash(c.flowSchema, c.distinguisher), c.level.deckSize, c.level.handSize);
      hands.set(c.distinguisher, hand);
    }
    return hand;
  }

  /**
   * Admits a classified, non-exempt request of `seats` seats. Returns the ticket at once when the
   * seats are free (the common case: no promise, no timer), or a promise of it while the request
   * waits in a queue; the caller must call `done` when the request ends. Throws (or rejects with)
   * RejectedRequest when its queue is full, the level is at its limit without queues, its wait
   * passes the limit, or the client goes away first (`onCancel` registers the canceller while
   * the request waits and returns its unregistration).
   */
  admit(c: Classification, seats: number, onCancel?: (cancel: () => void) => () => void): Ticket | Promise<Ticket> {
    const qs = c.level.queueSet!;
    const m = this.opts.metrics;
    const p = c.entry.stats;
    const arrival = this.now();
    let waiting: { resolve: (t: Ticket) => void; timer: NodeJS.Timeout; unregister?: () => void } | undefined;
    let req: QueuedRequest | undefined;
    const outcome = qs.enqueue(this.handOf(c), seats, arrival, () => {
      if (waiting) {
        clearTimeout(waiting.timer);
        waiting.unregister?.();
        if (p) p.inQueue--;
      }
      if (p) {
        p.executing++;
        m!.dispatched(p, c.level.name, c.flowSchema, (this.now() - arrival) / 1000);
      }
      if (waiting && req) waiting.resolve(new SeatTicket(qs, req, p, this.now));
    });
    if (typeof outcome === 'string') {
      m?.rejected(c.level.name, c.flowSchema, outcome);
      throw new RejectedRequest(outcome);
    }
    req = outcome;
    if (outcome.state === 'executing') return new SeatTicket(qs, outcome, p, this.now);
    if (p) p.inQueue++;
    return new Promise<Ticket>((resolve, reject) => {
      const leave = (reason: 'time-out' | 'cancelled') => {
        if (outcome.state !== 'waiting') return;
        qs.withdraw(outcome, reason, this.now());
        clearTimeout(w.timer);
        w.unregister?.();
        if (p) {
          p.inQueue--;
          m!.waited(p, c.level.name, c.flowSchema, (this.now() - arrival) / 1000);
        }
        m?.rejected(c.level.name, c.flowSchema, reason);
        reject(new RejectedRequest(reason));
      };
      const w: NonNullable<typeof waiting> = { resolve, timer: setTimeout(() => leave('time-out'), this.opts.queueWaitLimitMs) };
      w.unregister = onCancel?.(() => leave('cancelled'));
      waiting = w;
    });
  }

  /** Counts an exempt request as dispatched and executing until the returned function is called. */
  runExempt(c: Classification): () => void {
    const p = c.entry.stats;
    if (!p) return () => undefined;
    this.opts.metrics!.dispatched(p, c.level.name, c.flowSchema, 0);
    p.executing++;
    return () => {
      p.executing--;
    };
  }

  /** The levels, by name (for dumps and metrics). */
  levelStates(): LevelState[] {
    return [...this.levels.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Upstream's dump_priority_levels text. */
  dumpPriorityLevels(): string {
    const rows = ['PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests'];
    for (const l of this.levelStates()) {
      if (!l.queueSet) {
        rows.push(`${l.name}, <none>, <none>, <none>, <none>, <none>, <none>, <none>, <none>, <none>`);
        continue;
      }
      const s = l.queueSet.snapshot();
      const st = l.queueSet.stats;
      rows.push([l.name, s.activeQueues, l.queueSet.idle, false, s.waiting, s.executing, st.dispatched, st.rejected, st.timedOut, st.cancelled].join(', '));
    }
    return `${rows.join('\n')}\n`;
  }

  /** Upstream's dump_queues text. */
  dumpQueues(): string {
    const rows = ['PriorityLevelName, Index, PendingRequests, ExecutingRequests, SeatsInUse, NextDispatchR, InitialSeatsSum, MaxSeatsSum, TotalWorkSum'];
    for (const l of this.levelStates()) {
      if (!l.queueSet) {
        rows.push(`${l.name}, <none>, <none>, <none>, <none>, <none>, <none>, <none>, <none>`);
        continue;
      }
      for (const q of l.queueSet.queueRows()) {
        rows.push([l.name, q.index, q.waiting, q.executing, q.seatsInUse, `${q.nextDispatchR.toFixed(8)}ss`, q.waitingSeats, q.waitingSeats, `${q.waitingSeats}ss`].join(', '));
      }
    }
    return `${rows.join('\n')}\n`;
  }
}
