import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The controller manager's metrics, named as upstream's work queues and leader election. */
export interface ControllerMetrics {
  depth: Gauge<'name'>;
  adds: Counter<'name'>;
  retries: Counter<'name'>;
  queueDuration: Histogram<'name'>;
  workDuration: Histogram<'name'>;
  /** Failed reconciles per controller (upstream's controller-runtime name). */
  errors: Counter<'controller'>;
  /** 1 while this replica holds the controllers' Lease, else 0. */
  leader: Gauge<'name'>;
  /** Failed discovery reads or first lists of the garbage collector's informers (upstream's name). */
  gcResourcesSyncErrors: Counter;
}

const BUCKETS = [1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 60];

export function registerControllerMetrics(registry: Registry): ControllerMetrics {
  const registers = [registry];
  return {
    depth: new Gauge({ name: 'workqueue_depth', help: 'Current depth of the work queue.', labelNames: ['name'], registers }),
    adds: new Counter({ name: 'workqueue_adds_total', help: 'Total adds handled by the work queue.', labelNames: ['name'], registers }),
    retries: new Counter({ name: 'workqueue_retries_total', help: 'Total retries handled by the work queue.', labelNames: ['name'], registers }),
    queueDuration: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in the work queue before being processed.',
      labelNames: ['name'],
      buckets: BUCKETS,
      registers,
    }),
    workDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from the work queue takes.',
      labelNames: ['name'],
      buckets: BUCKETS,
      registers,
    }),
    errors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total reconciliation errors per controller.',
      labelNames: ['controller'],
      registers,
    }),
    gcResourcesSyncErrors: new Counter({
      name: 'garbagecollector_controller_resources_sync_error_total',
      help: '[ALPHA] Number of garbage collector resources sync errors',
      registers,
    }),
    leader: new Gauge({
      name: 'leader_election_master_status',
      help: 'Whether this replica is the leader of the named lease (1) or not (0).',
      labelNames: ['name'],
      registers,
    }),
  };
}
