import type { Authorizer } from '../../../authz/authorizer.js';
import type { ResourceRegistration } from '../../../registry/registration.js';
import { accessReviewRegistration } from '../access-review-registration.js';

/** authorization/v1 subjectaccessreviews: may the user in `spec` do the action? (cluster-scoped, virtual) */
export function subjectAccessReviews(apiDomain: string, authorizer: Authorizer): ResourceRegistration {
  return accessReviewRegistration(apiDomain, authorizer, 'SubjectAccessReview');
}
