import { newBadRequest, type KubeObject } from '@cluster/apimachinery';
import type { Authorizer } from '../../../authz/authorizer.js';
import type { ResourceRegistration } from '../../../registry/registration.js';
import { virtualStrategy } from '../../../registry/virtual-strategy.js';
import { rulesReviewStatus } from '../access-review.js';
import { reviewInfo } from '../review-info.js';

/**
 * authorization/v1 selfsubjectrulesreviews (`kubectl auth can-i --list`): the rules the requester
 * holds in `spec.namespace`. The answer carries only the status, as upstream's.
 */
export function selfSubjectRulesReviews(apiDomain: string, authorizer: Authorizer): ResourceRegistration {
  return {
    info: reviewInfo(apiDomain, 'SelfSubjectRulesReview', false),
    strategy: virtualStrategy(false),
    virtual: {
      async create(req, body) {
        const namespace = (body as KubeObject & { spec?: { namespace?: string } }).spec?.namespace ?? '';
        if (namespace === '') throw newBadRequest('no namespace on request');
        const result = authorizer.rulesFor
          ? await authorizer.rulesFor(req.user, namespace)
          : { rules: [], incomplete: true, evaluationError: 'the authorizer cannot list rules' };
        return { metadata: {}, status: rulesReviewStatus(result) } as KubeObject;
      },
    },
  };
}
