import { newBadRequest, type KubeObject } from '@cluster/apimachinery';
import type { TokenVerdict } from '../../../authn/authenticator.js';
import { withAuthenticatedGroup } from '../../../authn/authenticator.js';
import type { UserInfo } from '../../../authn/user.js';
import type { VirtualCreate } from '../../../registry/registration.js';

interface TokenReview extends KubeObject {
  spec?: { token?: string; audiences?: string[] | null };
}

/** What a TokenReview needs: this server's token methods as one, and --api-audiences. */
export interface TokenReviewDeps {
  tokens: { judge(token: string, audiences?: readonly string[]): Promise<TokenVerdict> };
  apiAudiences: readonly string[];
}

/** The wire form of a user (authentication/v1 UserInfo): empty fields are left out. */
export function userInfoOut(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.username };
  if (user.uid) out['uid'] = user.uid;
  if (user.groups.length > 0) out['groups'] = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) out['extra'] = user.extra;
  return out;
}

/**
 * POST tokenreviews (SPEC 2.10): runs this server's token authenticators on `spec.token`, for
 * `spec.audiences` or else the API audiences, as upstream's TokenReview storage. A token no method
 * knows is `authenticated` false without an error; one a method rejects carries the reason.
 */
export function tokenReviewCreate(deps: TokenReviewDeps): VirtualCreate {
  return {
    async create(_req, body) {
      const review = body as TokenReview;
      const token = review.spec?.token ?? '';
      if (token === '') throw newBadRequest('token is required for TokenReview in authentication');
      const asked = review.spec?.audiences ?? [];
      const audiences = asked.length > 0 ? asked : deps.apiAudiences;
      const verdict = await deps.tokens.judge(token, audiences.length > 0 ? audiences : undefined);
      const status: Record<string, unknown> = {};
      if ('accepted' in verdict) {
        status['authenticated'] = true;
        status['user'] = userInfoOut(withAuthenticatedGroup(verdict.accepted.user));
        if (verdict.accepted.audiences) status['audiences'] = verdict.accepted.audiences;
      } else if ('rejected' in verdict) {
        status['error'] = rejectionText(verdict.rejected);
      }
      return { ...review, status };
    },
  };
}

/** A 401 from a method says only "Unauthorized"; upstream's methods say "invalid bearer token". */
function rejectionText(err: Error): string {
  return err.message === 'Unauthorized' ? 'invalid bearer token' : err.message;
}
