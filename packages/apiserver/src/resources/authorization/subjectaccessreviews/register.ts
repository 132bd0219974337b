import { newInvalid } from '@cluster/apimachinery';
import type { Authorizer } from '../../../authz/authorizer.js';
import type { ResourceRegistration } from '../../../registry/registration.js';
import { virtualStrategy } from '../../../registry/virtual-strategy.js';
import { accessReviewStatus, reviewedRequest, reviewedUser, validateAccessReview, type AccessReview } from '../access-review.js';
import { reviewInfo } from '../review-info.js';

/** authorization/v1 subjectaccessreviews: may the user in `spec` do the action? (cluster-scoped, virtual) */
export function subjectAccessReviews(apiDomain: string, authorizer: Authorizer): ResourceRegistration {
  const info = reviewInfo(apiDomain, 'SubjectAccessReview', false);
  return {
    info,
    strategy: virtualStrategy(false),
    virtual: {
      async create(_req, body) {
        const review = body as AccessReview;
        const errs = validateAccessReview(review, 'SubjectAccessReview');
        if (errs.length > 0) throw newInvalid({ group: info.group, kind: info.kind }, '', errs);
        const d = await authorizer.authorize({ user: reviewedUser(review.spec!), info: reviewedRequest(review.spec!) });
        return { ...review, status: accessReviewStatus(d.decision, d.reason) };
      },
    },
  };
}
