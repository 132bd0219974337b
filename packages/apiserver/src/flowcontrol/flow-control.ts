import {
  FLOWCONTROL,
  flowControlBootstrap,
  type FlowSchema,
  type PriorityLevelConfiguration,
} from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import { classify, flowDistinguisher, sortFlowSchemas, type ClassifiedRequest } from './classify.js';
import { QueueSet, type QueuedRequest, type RejectReason } from './queue-set.js';
import { dealHand, flowHash } from './shuffle-sharding.js';
import type { FlowControlMetrics } from './metrics.js';

/** One priority level as this replica runs it. */
export interface LevelState {
  name: string;
  uid: string;
  exempt: boolean;
  /** Seats from the server's total by the level's share. */
  nominalSeats: number;
  queueSet?: QueueSet;
  handSize: number;
  deckSize: number;
}

/** What classification found: the schema, its level, and the flow's hash within the level. */
export interface Classification {
  flowSchema: string;
  flowSchemaUid: string;
  level: LevelState;
  distinguisher: string;
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

/**
 * The API priority and fairness state of one replica (upstream's apf controller): the digested
 * configuration (flow schemas in matching order, priority levels with their seats and queue sets),
 * classification, and admission through each level's queue set. The configuration comes from the
 * stored objects; the mandatory `exempt` and `catch-all` objects apply even while missing, as
 * upstream's. Queue sets survive configuration changes, so waiting requests keep their places.
 */
export class FlowControl {
  private schemas: FlowSchema[] = [];
  private levels = new Map<string, LevelState>();
  private readonly hands = new Map<string, number[]>();
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
        next.set(name, { name, uid, exempt, nominalSeats: 0, handSize: 0, deckSize: 0 });
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
      next.set(name, { name, uid, exempt, nominalSeats, queueSet, handSize: config.handSize, deckSize: config.queues });
    }
    this.levels = next;
    this.schemas = sortFlowSchemas([...fss.values()]);
    this.hands.clear();
    this.opts.metrics?.setLevels([...next.values()]);
  }

  /** The schema and level of a request; undefined only if even catch-all cannot be used. */
  classify(user: UserInfo, req: ClassifiedRequest): Classification | undefined {
    const levels = this.levels;
    const fs = classify(this.schemas, user, req, (s) => levels.has(s.spec?.priorityLevelConfiguration?.name ?? ''));
    if (!fs) return undefined;
    return {
      flowSchema: fs.metadata.name ?? '',
      flowSchemaUid: fs.metadata.uid ?? '',
      level: levels.get(fs.spec!.priorityLevelConfiguration!.name!)!,
      distinguisher: flowDistinguisher(fs, user, req),
    };
  }

  private handOf(c: Classification): number[] {
    const key = `${c.level.name}\u0000${c.flowSchema}\u0000${c.distinguisher}`;
    let hand = this.hands.get(key);
    if (!hand) {
      if (this.hands.size >= HAND_CACHE_LIMIT) this.hands.clear();
      hand = dealHand(flowHash(c.flowSchema, c.distinguisher), c.level.deckSize, c.level.handSize);
      this.hands.set(key, hand);
    }
    return hand;
  }

  /**
   * Admits a classified, non-exempt request of `seats` seats: resolves once it may run (the
   * caller must call `done` when it ends), rejects with RejectedRequest when its queue is full,
   * the level is at its limit without queues, its wait passes the limit, or the client goes away
   * first (`onCancel` registers the canceller while the request waits and returns its unregistration).
   */
  admit(c: Classification, seats: number, onCancel?: (cancel: () => void) => () => void): Promise<Ticket> {
    const qs = c.level.queueSet!;
    const m = this.opts.metrics;
    const arrival = this.now();
    const executing = () => {
      m?.executing(c.level.name, c.flowSchema, 1);
      m?.dispatched(c.level.name, c.flowSchema, (this.now() - arrival) / 1000);
    };
    return new Promise<Ticket>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let unregister: (() => void) | undefined;
      const ticket = (req: QueuedRequest): Ticket => ({
        done: () => {
          m?.executing(c.level.name, c.flowSchema, -1);
          qs.finish(req, this.now());
        },
      });
      let queued: QueuedRequest | undefined;
      const outcome = qs.enqueue(this.handOf(c), seats, arrival, () => {
        if (timer) {
          clearTimeout(timer);
          m?.inQueue(c.level.name, c.flowSchema, -1);
        }
        unregister?.();
        executing();
        // Resolved after enqueue returns when dispatched at once (see below).
        if (queued) resolve(ticket(queued));
      });
      if (typeof outcome === 'string') {
        m?.rejected(c.level.name, c.flowSchema, outcome);
        reject(new RejectedRequest(outcome));
        return;
      }
      if (outcome.state === 'executing') {
        resolve(ticket(outcome));
        return;
      }
      queued = outcome;
      m?.inQueue(c.level.name, c.flowSchema, 1);
      const leave = (reason: 'time-out' | 'cancelled') => {
        if (outcome.state !== 'waiting') return;
        qs.withdraw(outcome, reason, this.now());
        if (timer) clearTimeout(timer);
        timer = undefined;
        unregister?.();
        m?.inQueue(c.level.name, c.flowSchema, -1);
        m?.rejected(c.level.name, c.flowSchema, reason);
        m?.waited(c.level.name, c.flowSchema, (this.now() - arrival) / 1000);
        reject(new RejectedRequest(reason));
      };
      timer = setTimeout(() => leave('time-out'), this.opts.queueWaitLimitMs);
      unregister = onCancel?.(() => leave('cancelled'));
    });
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

  /** The mandatory level names, for callers that special-case them. */
  static readonly EXEMPT = FLOWCONTROL.exempt;
}
