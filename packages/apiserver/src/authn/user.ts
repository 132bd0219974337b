/**
 * The identity a request runs as (SPEC 5 item 2): opaque to authentication, meaningful only to
 * authorizers. Authenticators produce it; impersonation may replace it.
 */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}
