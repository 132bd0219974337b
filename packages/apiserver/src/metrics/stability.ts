import { API_LEVEL } from '../discovery/server-version.js';

/** Upstream's metric stability classes (SPEC 9.3 rule 9). */
export type StabilityLevel = 'STABLE' | 'BETA' | 'ALPHA';

export interface MetricStability {
  level: StabilityLevel;
  /** `x.y` release the metric was deprecated in; it is hidden from the release after next. */
  deprecatedVersion?: string;
}

/**
 * The class of every metric this server exports, as upstream labels the same names; ours that
 * upstream lacks are ALPHA. Metrics not listed (process and runtime metrics) carry no class, as
 * upstream's process collectors.
 */
export const METRIC_STABILITY: Readonly<Record<string, MetricStability>> = {
  apiserver_request_total: { level: 'STABLE' },
  apiserver_admission_webhook_admission_duration_seconds: { level: 'STABLE' },
  apiserver_admission_webhook_rejection_count: { level: 'ALPHA' },
  apiserver_request_duration_seconds: { level: 'STABLE' },
  apiserver_current_inflight_requests: { level: 'STABLE' },
  apiserver_storage_objects: { level: 'STABLE' },
  apiserver_requested_deprecated_apis: { level: 'STABLE' },
  apiserver_audit_event_total: { level: 'ALPHA' },
  apiserver_audit_error_total: { level: 'ALPHA' },
  apiserver_storage_etcd_watches: { level: 'ALPHA' },
  apiserver_watch_cache_watchers: { level: 'ALPHA' },
  etcd_request_duration_seconds: { level: 'ALPHA' },
  workqueue_depth: { level: 'ALPHA' },
  workqueue_adds_total: { level: 'ALPHA' },
  workqueue_retries_total: { level: 'ALPHA' },
  workqueue_queue_duration_seconds: { level: 'ALPHA' },
  workqueue_work_duration_seconds: { level: 'ALPHA' },
  leader_election_master_status: { level: 'ALPHA' },
  controller_runtime_reconcile_errors_total: { level: 'ALPHA' },
};

/** The release this server reports in `/version` (its API level). */
export const CURRENT_MINOR: { major: number; minor: number } = API_LEVEL;

const minorOf = (v: string) => {
  const m = /^(\d+)\.(\d+)$/.exec(v);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
};

/**
 * Whether a deprecated metric is hidden: from two minor releases after its deprecation, unless
 * `--show-hidden-metrics-for-version` names the previous release (upstream's rule). Pure.
 */
export function isHidden(s: MetricStability, showHiddenFor: string | undefined, current = CURRENT_MINOR): boolean {
  const dep = s.deprecatedVersion ? minorOf(s.deprecatedVersion) : undefined;
  if (!dep || dep.major !== current.major) return false;
  if (current.minor - dep.minor < 2) return false;
  return !(showHiddenFor && current.minor - dep.minor === 2 && showHiddenFor === `${current.major}.${current.minor - 1}`);
}

/** `--show-hidden-metrics-for-version`: only the previous minor release is allowed (upstream). */
export function validateShowHiddenMetricsVersion(v: string, current = CURRENT_MINOR): string | undefined {
  if (v === '') return undefined;
  const want = `${current.major}.${current.minor - 1}`;
  return v === want ? undefined : `--show-hidden-metrics-for-version must be omitted or have the value '${want}'. Only the previous minor version is allowed`;
}

/**
 * Rewrites a Prometheus text exposition with the stability of each metric: `[STABLE]` / `[BETA]`
 * / `[ALPHA]` before its help, `(Deprecated since x.y.0)` for deprecated ones, and hidden ones
 * left out entirely. Pure; `table` defaults to this server's.
 */
export function withStability(text: string, showHiddenFor?: string, table: Readonly<Record<string, MetricStability>> = METRIC_STABILITY): string {
  const out: string[] = [];
  let hidden: string | undefined;
  for (const line of text.split('\n')) {
    const help = /^# HELP (\S+) (.*)$/.exec(line);
    if (help) {
      const s = table[help[1]!];
      hidden = s && isHidden(s, showHiddenFor) ? help[1] : undefined;
      if (hidden) continue;
      if (s) {
        const deprecated = s.deprecatedVersion ? `(Deprecated since ${s.deprecatedVersion}.0) ` : '';
        out.push(`# HELP ${help[1]} [${s.level}] ${deprecated}${help[2]}`);
        continue;
      }
      out.push(line);
      continue;
    }
    if (hidden && (line.startsWith(`# TYPE ${hidden} `) || line.startsWith(hidden))) continue;
    out.push(line);
  }
  return out.join('\n');
}
