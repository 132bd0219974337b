import type { TableColumnDefinition } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import type { Pod } from '../pod-spec/types.js';

const column = (name: string, type: TableColumnDefinition['type'], description: string, priority = 0): TableColumnDefinition => ({
  name,
  type,
  format: '',
  description,
  priority,
});

/** Upstream's pod columns: NAME READY STATUS RESTARTS AGE, and IP, NODE, NOMINATED NODE, READINESS GATES with -o wide. */
export const podColumns: TableColumnDefinition[] = [
  nameColumn,
  column('Ready', 'string', 'Ready containers out of all containers.'),
  column('Status', 'string', 'The aggregate state of the containers in the pod.'),
  column('Restarts', 'string', 'Restarts of the containers in the pod.'),
  ageColumn,
  column('IP', 'string', 'IP address of the pod.', 1),
  column('Node', 'string', 'Node the pod is bound to.', 1),
  column('Nominated Node', 'string', 'Node the scheduler nominated for the pod.', 1),
  column('Readiness Gates', 'string', 'Satisfied readiness gates out of all gates.', 1),
];

/** The STATUS column as kubectl shows it: a container's waiting/terminated reason wins over the phase. */
export function podStatusText(pod: Pod): string {
  let reason = pod.status?.reason || pod.status?.phase || 'Pending';
  for (const cs of pod.status?.containerStatuses ?? []) {
    const waiting = cs.state?.waiting?.reason;
    const terminated = cs.state?.terminated;
    if (waiting) reason = waiting;
    else if (terminated?.reason) reason = terminated.reason;
    else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
  }
  if (pod.metadata.deletionTimestamp) reason = 'Terminating';
  return reason;
}

export function podCells(pod: Pod): unknown[] {
  const statuses = pod.status?.containerStatuses ?? [];
  const ready = statuses.filter((s) => s.ready).length;
  const restarts = statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0);
  const gates = pod.spec?.readinessGates ?? [];
  const trueConditions = new Set((pod.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type));
  const gateText = gates.length ? `${gates.filter((g) => trueConditions.has(g.conditionType)).length}/${gates.length}` : '<none>';
  return [
    pod.metadata.name ?? '',
    `${ready}/${pod.spec?.containers?.length ?? 0}`,
    podStatusText(pod),
    String(restarts),
    ageOf(pod.metadata.creationTimestamp, new Date()),
    pod.status?.podIP || '<none>',
    pod.spec?.nodeName || '<none>',
    pod.status?.nominatedNodeName || '<none>',
    gateText,
  ];
}
