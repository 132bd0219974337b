/** One named health check; throws (or rejects) when unhealthy. */
export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

export interface HealthResponse {
  code: number;
  body: string;
}

const CHECK_TIMEOUT_MS = 2_000;

async function runCheck(c: HealthCheck): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      c.check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
      }),
    ]);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Answers /healthz, /livez or /readyz (SPEC 4.9): `ok` or, with ?verbose, one `[+]name ok` /
 * `[-]name failed: reason withheld` line per check; ?exclude=name skips a check. 200 when all
 * pass, 500 otherwise. `only` selects a single check (`/livez/etcd`); unknown names are 404.
 */
export async function runHealth(
  endpoint: 'healthz' | 'livez' | 'readyz',
  checks: readonly HealthCheck[],
  query: URLSearchParams,
  only?: string,
): Promise<HealthResponse> {
  if (only !== undefined) {
    const c = checks.find((x) => x.name === only);
    if (!c) return { code: 404, body: '404 page not found\n' };
    const failure = await runCheck(c);
    return failure === undefined ? { code: 200, body: 'ok' } : { code: 500, body: `internal server error: ${failure}\n` };
  }
  const excluded = new Set(query.getAll('exclude').flatMap((v) => v.split(',')).filter(Boolean));
  const verbose = query.has('verbose') && query.get('verbose') !== 'false';
  const lines: string[] = [];
  let failed = false;
  const results = await Promise.all(checks.map((c) => (excluded.has(c.name) ? Promise.resolve(null) : runCheck(c))));
  checks.forEach((c, i) => {
    const r = results[i];
    if (r === null) {
      lines.push(`[+]${c.name} excluded: ok`);
      excluded.delete(c.name);
    } else if (r === undefined) {
      lines.push(`[+]${c.name} ok`);
    } else {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
    }
  });
  if (excluded.size > 0) {
    lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].map((n) => `"${n}"`).join(',')}`);
  }
  if (failed) {
    return { code: 500, body: `${lines.join('\n')}\n${endpoint} check failed\n` };
  }
  if (!verbose) return { code: 200, body: 'ok' };
  return { code: 200, body: `${lines.join('\n')}\n${endpoint} check passed\n` };
}
