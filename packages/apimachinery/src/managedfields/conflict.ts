import { newApplyConflict, type StatusError } from '../errors/status-error.js';
import type { StatusCause } from '../meta/types.js';
import { compareStrings } from './go-json.js';
import { parseManagerIdentifier } from './managers.js';
import { pathString } from './path-element.js';
import type { Conflict } from './updater.js';

/**
 * How upstream names a manager in conflict messages: `"name"`, plus `with subresource "s"`, plus
 * `using <apiVersion>` for Update managers (identifiers carry no time, so no `at <time>`).
 */
export function printManager(id: string): string {
  let info;
  try {
    info = parseManagerIdentifier(id);
  } catch {
    return JSON.stringify(id);
  }
  let s = JSON.stringify(info.manager ?? '');
  if (info.subresource) s += ` with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === 'Update') s += ` using ${info.apiVersion ?? ''}`;
  return s;
}

/**
 * The 409 Conflict of an apply (upstream NewConflictError): one FieldManagerConflict cause per
 * field, and the message `Apply failed with 1 conflict: conflict with "m" using v1: .data.a` or,
 * for several, `Apply failed with N conflicts: conflicts with "m" using v1:\n- .data.a\n- ...`
 * grouped by manager in identifier order.
 */
export function newConflictError(conflicts: readonly Conflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => compareStrings(a.manager, b.manager));
  const causes: StatusCause[] = sorted.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  return newApplyConflict(causes, conflictMessage(sorted));
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  const [only] = conflicts;
  if (conflicts.length === 1 && only) {
    return `Apply failed with 1 conflict: conflict with ${printManager(only.manager)}: ${pathString(only.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.manager) ?? [];
    list.push(pathString(c.path));
    byManager.set(c.manager, list);
  }
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort(compareStrings)) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const p of byManager.get(m) ?? []) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
