import { newInvalid } from '@cluster/apimachinery';
import type { Authorizer } from '../../../authz/authorizer.js';
import type { ResourceRegistration } from '../../../registry/registration.js';
import { virtualStrategy } from '../../../registry/virtual-strategy.js';
import { accessReviewStatus, reviewedRequest, validateAccessReview, type AccessReview } from '../access-review.js';
import { reviewInfo } from '../review-info.js';

/** authorization/v1 selfsubjectaccessreviews (`kubectl auth can-i`): may the requester do the action? */
export function selfSubjectAccessReviews(apiDomain: string, authorizer: Authorizer): ResourceRegistration {
  const info = reviewInfo(apiDomain, 'SelfSubjectAccessReview', false);
  return {
    info,
    strategy: virtualStrategy(false),
    virtual: {
      async create(req, body) {
        const review = body as AccessReview;
        const errs = validateAccessReview(review, 'SelfSubjectAccessReview');
        if (errs.length > 0) throw newInvalid({ group: info.group, kind: info.kind }, '', errs);
        const d = await authorizer.authorize({ user: req.user, info: reviewedRequest(review.spec!) });
        return { ...review, status: accessReviewStatus(d.decision, d.reason) };
      },
    },
  };
}
