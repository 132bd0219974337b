import type { Authorizer } from '../../../authz/authorizer.js';
import type { ResourceRegistration } from '../../../registry/registration.js';
import { accessReviewRegistration } from '../access-review-registration.js';

/**
 * authorization/v1 localsubjectaccessreviews: a SubjectAccessReview confined to the namespace of
 * its URL, so that namespace admins may be granted it (cluster-scoped SAR reveals too much).
 */
export function localSubjectAccessReviews(apiDomain: string, authorizer: Authorizer): ResourceRegistration {
  return accessReviewRegistration(apiDomain, authorizer, 'LocalSubjectAccessReview');
}
