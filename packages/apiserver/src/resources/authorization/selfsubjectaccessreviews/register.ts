import type { Authorizer } from '../../../authz/authorizer.js';
import type { ResourceRegistration } from '../../../registry/registration.js';
import { accessReviewRegistration } from '../access-review-registration.js';

/** authorization/v1 selfsubjectaccessreviews (`kubectl auth can-i`): may the requester do the action? */
export function selfSubjectAccessReviews(apiDomain: string, authorizer: Authorizer): ResourceRegistration {
  return accessReviewRegistration(apiDomain, authorizer, 'SelfSubjectAccessReview');
}
