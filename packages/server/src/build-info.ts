import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UNKNOWN_BUILD, type BuildInfo } from '@cluster/apiserver';

/**
 * Where `make build` stamps the build: next to this package's compiled code, so a copy of the
 * built tree carries it and it never lands in git (dist/ is ignored).
 */
export function buildInfoFile(moduleFile: string = fileURLToPath(import.meta.url)): string {
  // dist/src/build-info.js -> dist/build-info.json; src/build-info.ts (tests) -> build-info.json beside src/.
  return join(dirname(dirname(moduleFile)), 'build-info.json');
}

function git(dir: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5_000 }).trim();
  } catch {
    return undefined;
  }
}

/** Go's time.RFC3339 in UTC, without fractions (upstream's buildDate form). */
function rfc3339(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/**
 * What git says about the checkout holding `dir`: HEAD's commit, whether the tree has changes, and
 * the commit's date as the build date (reproducible for a clean checkout); undefined outside git.
 * Spawns git (bounded to 5 s per call).
 */
export function buildInfoFromGit(dir: string, now?: Date): BuildInfo | undefined {
  const commit = git(dir, ['rev-parse', 'HEAD']);
  if (!commit || !/^[0-9a-f]{40,64}$/.test(commit)) return undefined;
  const status = git(dir, ['status', '--porcelain', '--untracked-files=no']);
  const committed = git(dir, ['show', '-s', '--format=%cI', 'HEAD']);
  const date = now ?? (committed ? new Date(committed) : undefined);
  return {
    gitCommit: commit,
    gitTreeState: status === undefined ? '' : status === '' ? 'clean' : 'dirty',
    buildDate: date && !Number.isNaN(date.getTime()) ? rfc3339(date) : UNKNOWN_BUILD.buildDate,
  };
}

function isBuildInfo(v: unknown): v is BuildInfo {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.gitCommit === 'string' &&
    (o.gitTreeState === 'clean' || o.gitTreeState === 'dirty' || o.gitTreeState === '') &&
    typeof o.buildDate === 'string'
  );
}

/**
 * The running build's BuildInfo for /version: the file `make build` stamped, else git's answer for
 * the checkout the code runs from (tests, `node` on sources), else upstream's unstamped values
 * (empty commit and tree state). Reads one small file or spawns git once; never throws.
 */
export function readBuildInfo(moduleFile: string = fileURLToPath(import.meta.url)): BuildInfo {
  const file = buildInfoFile(moduleFile);
  if (existsSync(file)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (isBuildInfo(parsed)) return parsed;
    } catch {
      // A damaged stamp is no worse than none: ask git.
    }
  }
  return buildInfoFromGit(dirname(moduleFile)) ?? UNKNOWN_BUILD;
}

/** Writes the stamp for the build in progress (called by `make build` after tsc); the build date is now. */
export function stampBuildInfo(moduleFile: string = fileURLToPath(import.meta.url), now = new Date()): BuildInfo {
  const info = buildInfoFromGit(dirname(moduleFile), now) ?? { ...UNKNOWN_BUILD, buildDate: rfc3339(now) };
  writeFileSync(buildInfoFile(moduleFile), `${JSON.stringify(info, null, 2)}\n`);
  return info;
}
