/**
 * Upstream's audience-agnostic wrapping of token methods that know nothing of audiences (token
 * file, bootstrap tokens): with no requested audiences the token is judged for this server; with
 * some, it can only be valid for those that are also this server's audiences (--api-audiences).
 * Returns undefined when no requested audience is ours (the method must not accept the token),
 * else the audiences to report (undefined when none were requested).
 */
export function agnosticAudiences(
  apiAudiences: readonly string[],
  requested: readonly string[] | undefined,
): { audiences?: string[] } | undefined {
  if (!requested || requested.length === 0) return {};
  const valid = requested.filter((a) => apiAudiences.includes(a));
  return valid.length > 0 ? { audiences: valid } : undefined;
}
