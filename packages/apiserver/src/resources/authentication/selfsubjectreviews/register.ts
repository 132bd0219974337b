import type { ResourceRegistration } from '../../../registry/registration.js';
import { virtualStrategy } from '../../../registry/virtual-strategy.js';
import { userInfoOut } from '../tokenreviews/review.js';

/**
 * authentication/v1 selfsubjectreviews (`kubectl auth whoami`): answers the identity the request
 * runs as, after impersonation, with a creation time as upstream's.
 */
export function selfSubjectReviews(apiDomain: string, now: () => number = Date.now): ResourceRegistration {
  return {
    info: {
      group: `authentication.${apiDomain}`,
      version: 'v1',
      resource: 'selfsubjectreviews',
      singularName: 'selfsubjectreview',
      kind: 'SelfSubjectReview',
      listKind: 'SelfSubjectReviewList',
      namespaced: false,
      verbs: ['create'],
      definitionName: 'io.k8s.api.authentication.v1.SelfSubjectReview',
    },
    strategy: virtualStrategy(false),
    virtual: {
      async create(req, body) {
        const creationTimestamp = new Date(now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
        return { ...body, metadata: { ...body.metadata, creationTimestamp }, status: { userInfo: userInfoOut(req.user) } };
      },
    },
  };
}
