/** A feature gate's maturity (SPEC 9.3 rule 8): alpha off by default, beta on, GA locked on. */
export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** GA (and some deprecated) gates cannot be set against their default. */
  lockToDefault?: boolean;
}

/**
 * The gates this server knows, upstream names (but ConsistentGetFromCache). APIListChunking is GA
 * and locked upstream; here it stays switchable (beta, on) because the API versions issue asks for
 * lists that ignore `limit` when it is off.
 */
export const FEATURE_GATES: Readonly<Record<string, FeatureSpec>> = {
  APIListChunking: { default: true, stage: 'BETA' },
  // Not an upstream gate (upstream reads gets without resourceVersion from etcd): this server's
  // own switch for serving them from the watch cache as ConsistentListFromCache serves lists.
  ConsistentGetFromCache: { default: true, stage: 'BETA' },
  ConsistentListFromCache: { default: true, stage: 'BETA' },
  ServerSideApply: { default: true, stage: 'GA', lockToDefault: true },
  ServerSideFieldValidation: { default: true, stage: 'GA', lockToDefault: true },
  WatchBookmark: { default: true, stage: 'GA', lockToDefault: true },
};

/** Upstream's pseudo-gates that switch every alpha or beta gate at once. */
const ALL: Readonly<Record<string, FeatureStage>> = { AllAlpha: 'ALPHA', AllBeta: 'BETA' };

export interface ResolvedGates {
  enabled: Record<string, boolean>;
  /** Start-up errors in upstream's words (unknown gate, locked gate set the other way). */
  errors: string[];
  /** Logged at start-up: setting a GA gate is deprecated and will stop working. */
  warnings: string[];
}

/** Every known gate's value under `--feature-gates` (pure). */
export function resolveFeatureGates(set: Readonly<Record<string, boolean>>, known: Readonly<Record<string, FeatureSpec>> = FEATURE_GATES): ResolvedGates {
  const enabled: Record<string, boolean> = {};
  for (const [name, spec] of Object.entries(known)) enabled[name] = spec.default;
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const [name, stage] of Object.entries(ALL)) {
    if (!(name in set)) continue;
    for (const [gate, spec] of Object.entries(known)) if (spec.stage === stage && !(gate in set)) enabled[gate] = set[name]!;
  }
  for (const [name, value] of Object.entries(set)) {
    if (name in ALL) continue;
    const spec = known[name];
    if (!spec) {
      errors.push(`unrecognized feature gate: ${name}`);
      continue;
    }
    if (spec.lockToDefault && value !== spec.default) {
      errors.push(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      continue;
    }
    if (spec.stage === 'GA' || spec.stage === 'DEPRECATED') {
      warnings.push(`Setting ${spec.stage} feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    enabled[name] = value;
  }
  return { enabled, errors, warnings };
}
