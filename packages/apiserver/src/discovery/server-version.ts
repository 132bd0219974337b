/**
 * The Kubernetes API level this server implements, reported by `/version` and OpenAPI `info.version`.
 *
 * Why 1.25: the served API surface is 1.25's. SPEC 9 says its reference covers software version
 * 1.25, and the versions 1.25 removed are not served by default here, as on a 1.25 server
 * (`events.k8s.io/v1beta1` only behind --runtime-config; `discovery.k8s.io/v1beta1`,
 * `batch/v1beta1`, `policy/v1beta1` not at all), while a 1.24 server still serves them. The few newer additions (aggregated discovery, SelfSubjectReview v1,
 * newer DeleteOptions fields) are conveniences for current clients that older clients never ask for,
 * so they do not raise the level. Upstream's conformance suite this server is measured with is
 * v1.24: its framework only gates specs on a minimum server version, which 1.25 meets. Reporting
 * the kubectl's own release (1.32) instead claimed APIs this server does not have.
 */
export const API_LEVEL = { major: 1, minor: 25 } as const;

/** What the build stamps (or git tells at start-up) about the running code; see BuildInfo fields. */
export interface BuildInfo {
  /** Full hex id of the commit built; '' when unknown (as an unstamped upstream binary reports). */
  gitCommit: string;
  /** 'clean', 'dirty' (uncommitted changes were built), or '' when unknown. */
  gitTreeState: 'clean' | 'dirty' | '';
  /** RFC 3339 UTC time of the build (`2006-01-02T15:04:05Z`). */
  buildDate: string;
}

/** Build information of code whose origin is unknown: upstream's unstamped values. */
export const UNKNOWN_BUILD: BuildInfo = { gitCommit: '', gitTreeState: '', buildDate: '1970-01-01T00:00:00Z' };

/**
 * The release in upstream's gitVersion form: `v1.25.0`, then semver build metadata naming this
 * product and the commit (`+cluster.0123456789abcd`, 14 hex digits as upstream's own suffix), which
 * semver orders equal to `v1.25.0`, so version checks (`ParseSemantic(...).AtLeast(...)`) read 1.25.0.
 */
export function serverGitVersion(build: BuildInfo = UNKNOWN_BUILD): string {
  const commit = /^[0-9a-f]{7,}$/.test(build.gitCommit) ? `.${build.gitCommit.slice(0, 14)}` : '';
  return `v${API_LEVEL.major}.${API_LEVEL.minor}.0+cluster${commit}`;
}
