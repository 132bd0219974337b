import type { UserInfo } from './user.js';

/** How verified ID-token claims become a user (SPEC 5.1: the `--oidc-*` claim and prefix flags). */
export interface OidcClaimRules {
  /** `--oidc-issuer-url`: the default username prefix is built from it. */
  issuerUrl: string;
  /** `--oidc-username-claim`; `sub` by default. */
  usernameClaim: string;
  /** `--oidc-username-prefix`: '' (unset) means the default; `-` disables prefixing. */
  usernamePrefix: string;
  /** `--oidc-groups-claim`; '' means no groups from the token. */
  groupsClaim: string;
  /** `--oidc-groups-prefix`, put before each group. */
  groupsPrefix: string;
  /** `--oidc-required-claim`: each claim must be present as exactly this string. */
  requiredClaims: Readonly<Record<string, string>>;
}

/** A token whose claims do not make a user; the message says which rule failed (for logs). */
export class OidcClaimError extends Error {
  override readonly name = 'OidcClaimError';
}

/**
 * The prefix put before every username (upstream's flag rules): an explicit prefix as given, `-`
 * none at all, and unset: none for the `email` claim, `<issuer-url>#` for any other claim, so
 * that a `sub` from this issuer cannot collide with another identity source's names.
 */
export function usernamePrefixFor(rules: Pick<OidcClaimRules, 'issuerUrl' | 'usernameClaim' | 'usernamePrefix'>): string {
  if (rules.usernamePrefix === '-') return '';
  if (rules.usernamePrefix !== '') return rules.usernamePrefix;
  return rules.usernameClaim === 'email' ? '' : `${rules.issuerUrl}#`;
}

/**
 * The user of a verified token's claims. Throws {@link OidcClaimError} when a required claim is
 * absent or differs, the username claim is absent, empty or not a string, `email` is the username
 * claim and `email_verified` is present but not true, or the groups claim is neither a string nor
 * an array of strings. An absent (or null) groups claim means no groups. No uid: the flags map none.
 */
export function userFromClaims(claims: Readonly<Record<string, unknown>>, rules: OidcClaimRules): UserInfo {
  for (const [claim, want] of Object.entries(rules.requiredClaims)) {
    if (!(claim in claims)) throw new OidcClaimError(`required claim ${claim} not present in ID token`);
    const got = claims[claim];
    if (typeof got !== 'string') throw new OidcClaimError(`parse claim ${claim}: not a string`);
    if (got !== want) throw new OidcClaimError(`required claim ${claim} value does not match. Got = ${got}, want = ${want}`);
  }

  const raw = claims[rules.usernameClaim];
  if (raw === undefined) throw new OidcClaimError(`parse username claims ${JSON.stringify(rules.usernameClaim)}: claim not present`);
  if (typeof raw !== 'string') throw new OidcClaimError(`parse username claims ${JSON.stringify(rules.usernameClaim)}: not a string`);
  if (raw === '') throw new OidcClaimError(`username claim ${JSON.stringify(rules.usernameClaim)} is empty`);
  if (rules.usernameClaim === 'email' && 'email_verified' in claims) {
    const verified = claims['email_verified'];
    if (typeof verified !== 'boolean') throw new OidcClaimError(`parse 'email_verified' claim: not a boolean`);
    if (!verified) throw new OidcClaimError('email not verified');
  }

  const groups = rules.groupsClaim === '' ? [] : groupsOf(claims[rules.groupsClaim], rules.groupsClaim);
  return {
    username: usernamePrefixFor(rules) + raw,
    groups: groups.map((g) => rules.groupsPrefix + g),
  };
}

/** A groups claim: one string (some providers put a single role there) or an array of strings. */
function groupsOf(value: unknown, claim: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((g): g is string => typeof g === 'string')) return [...value];
  throw new OidcClaimError(`parse groups claim ${JSON.stringify(claim)}: not a string or an array of strings`);
}
