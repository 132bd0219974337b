import { newBadRequest, newInvalid } from '@cluster/apimachinery';
import type { Authorizer } from '../../authz/authorizer.js';
import type { ResourceRegistration } from '../../registry/registration.js';
import { virtualStrategy } from '../../registry/virtual-strategy.js';
import { accessReviewStatus, reviewedRequest, reviewedUser, validateAccessReview, type AccessReview, type AccessReviewKind } from './access-review.js';
import { reviewInfo } from './review-info.js';

/**
 * The three access reviews differ only in scope and whose access they check: SubjectAccessReview
 * (cluster-scoped, the user in `spec`), LocalSubjectAccessReview (the namespace of its URL, the
 * user in `spec`) and SelfSubjectAccessReview (cluster-scoped, the requester). Each validates as
 * upstream's storage does (422 with field causes) and answers with `status` filled in.
 */
export function accessReviewRegistration(apiDomain: string, authorizer: Authorizer, kind: AccessReviewKind): ResourceRegistration {
  const namespaced = kind === 'LocalSubjectAccessReview';
  const info = reviewInfo(apiDomain, kind, namespaced);
  return {
    info,
    strategy: virtualStrategy(namespaced),
    virtual: {
      async create(req, body) {
        const review = body as AccessReview;
        if (namespaced && req.namespace === '') throw newBadRequest('namespace is required on this type');
        const errs = validateAccessReview(review, kind);
        if (errs.length > 0) throw newInvalid({ group: info.group, kind: info.kind }, '', errs);
        const user = kind === 'SelfSubjectAccessReview' ? req.user : reviewedUser(review.spec!);
        const d = await authorizer.authorize({ user, info: reviewedRequest(review.spec!) });
        return { ...review, status: accessReviewStatus(d.decision, d.reason) };
      },
    },
  };
}
