import { newBadRequest, newInvalid } from '@cluster/apimachinery';
import type { Authorizer } from '../../../authz/authorizer.js';
import type { ResourceRegistration } from '../../../registry/registration.js';
import { virtualStrategy } from '../../../registry/virtual-strategy.js';
import { accessReviewStatus, reviewedRequest, reviewedUser, validateAccessReview, type AccessReview } from '../access-review.js';
import { reviewInfo } from '../review-info.js';

/**
 * authorization/v1 localsubjectaccessreviews: a SubjectAccessReview confined to the namespace of
 * its URL, so that namespace admins may be granted it (cluster-scoped SAR reveals too much).
 */
export function localSubjectAccessReviews(apiDomain: string, authorizer: Authorizer): ResourceRegistration {
  const info = reviewInfo(apiDomain, 'LocalSubjectAccessReview', true);
  return {
    info,
    strategy: virtualStrategy(true),
    virtual: {
      async create(req, body) {
        const review = body as AccessReview;
        if (req.namespace === '') throw newBadRequest('namespace is required on this type');
        const errs = validateAccessReview(review, 'LocalSubjectAccessReview');
        if (errs.length > 0) throw newInvalid({ group: info.group, kind: info.kind }, '', errs);
        const d = await authorizer.authorize({ user: reviewedUser(review.spec!), info: reviewedRequest(review.spec!) });
        return { ...review, status: accessReviewStatus(d.decision, d.reason) };
      },
    },
  };
}
