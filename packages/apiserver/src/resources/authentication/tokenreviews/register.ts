import type { ResourceRegistration } from '../../../registry/registration.js';
import { virtualStrategy } from '../../../registry/virtual-strategy.js';
import { tokenReviewCreate, type TokenReviewDeps } from './review.js';

/** authentication/v1 tokenreviews: a virtual, create-only, cluster-scoped review (SPEC 2.10). */
export function tokenReviews(apiDomain: string, deps: TokenReviewDeps): ResourceRegistration {
  return {
    info: {
      group: `authentication.${apiDomain}`,
      version: 'v1',
      resource: 'tokenreviews',
      singularName: 'tokenreview',
      kind: 'TokenReview',
      listKind: 'TokenReviewList',
      namespaced: false,
      verbs: ['create'],
      definitionName: 'io.k8s.api.authentication.v1.TokenReview',
    },
    strategy: virtualStrategy(false),
    virtual: tokenReviewCreate(deps),
  };
}
