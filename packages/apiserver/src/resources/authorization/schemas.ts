import {
  booleanProp,
  mapProp,
  objectSchema,
  objectTypeMeta,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringProp,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';

const AUTHZ_V1 = 'io.k8s.api.authorization.v1';
const atomic = { 'x-kubernetes-list-type': 'atomic' } as const;

/**
 * OpenAPI definitions of authorization/v1: SubjectAccessReview, SelfSubjectAccessReview,
 * LocalSubjectAccessReview and SelfSubjectRulesReview. (The field and label selectors of
 * ResourceAttributes, a 1.31 beta, are not served.)
 */
export function authorizationDefinitions(apiDomain: string): Definitions {
  const gvk = (kind: string) => [{ group: `authorization.${apiDomain}`, version: 'v1', kind }];
  const review = (kind: string, description: string, spec: string) =>
    objectSchema(
      description,
      {
        ...objectTypeMeta(),
        spec: refProp(`${AUTHZ_V1}.${spec}`, 'The action being checked.', { default: {} }),
        status: refProp(`${AUTHZ_V1}.SubjectAccessReviewStatus`, 'The decision, filled in by the server.', { default: {} }),
      },
      { required: ['spec'], gvk: gvk(kind) },
    );
  const attributes = {
    nonResourceAttributes: refProp(`${AUTHZ_V1}.NonResourceAttributes`, 'A non-resource request to check.'),
    resourceAttributes: refProp(`${AUTHZ_V1}.ResourceAttributes`, 'A resource request to check.'),
  };
  return {
    [`${AUTHZ_V1}.SubjectAccessReview`]: review('SubjectAccessReview', 'Checks whether a user or group can perform an action.', 'SubjectAccessReviewSpec'),
    [`${AUTHZ_V1}.LocalSubjectAccessReview`]: review(
      'LocalSubjectAccessReview',
      'Checks whether a user or group can perform an action in one namespace.',
      'SubjectAccessReviewSpec',
    ),
    [`${AUTHZ_V1}.SelfSubjectAccessReview`]: review(
      'SelfSubjectAccessReview',
      'Checks whether the requester can perform an action (kubectl auth can-i).',
      'SelfSubjectAccessReviewSpec',
    ),
    [`${AUTHZ_V1}.SubjectAccessReviewSpec`]: objectSchema('A request attributes check for a user: exactly one of the attributes is set.', {
      ...attributes,
      extra: mapProp('Extra attributes of the user.', { type: 'array', items: { type: 'string', default: '' } }),
      groups: stringArrayProp('Groups of the user.', atomic),
      uid: stringProp('UID of the user.'),
      user: stringProp('The user to check; user or groups is required.'),
    }),
    [`${AUTHZ_V1}.SelfSubjectAccessReviewSpec`]: objectSchema('A request attributes check for the requester: exactly one of the attributes is set.', attributes),
    [`${AUTHZ_V1}.ResourceAttributes`]: objectSchema('The attributes of a resource request.', {
      group: stringProp('API group of the resource; "*" means all.'),
      name: stringProp('Name of the object; empty means all.'),
      namespace: stringProp('Namespace of the action; empty means all namespaces for namespaced resources.'),
      resource: stringProp('A resource type; "*" means all.'),
      subresource: stringProp('A subresource; empty means none.'),
      verb: stringProp('A verb, e.g. get, list, create; "*" means all.'),
      version: stringProp('API version; "*" means all.'),
    }),
    [`${AUTHZ_V1}.NonResourceAttributes`]: objectSchema('The attributes of a non-resource request.', {
      path: stringProp('The URL path of the request.'),
      verb: stringProp('The standard HTTP verb.'),
    }),
    [`${AUTHZ_V1}.SubjectAccessReviewStatus`]: objectSchema(
      'The decision of an access review.',
      {
        allowed: booleanProp('True when the action would be allowed.', { default: false }),
        denied: booleanProp('True when the action would be denied outright.'),
        evaluationError: stringProp('An error met while checking; the decision may still be meaningful.'),
        reason: stringProp('Why the action is allowed or denied.'),
      },
      { required: ['allowed'] },
    ),
    [`${AUTHZ_V1}.SelfSubjectRulesReview`]: objectSchema(
      'Lists the actions the requester may perform in a namespace (kubectl auth can-i --list).',
      {
        ...objectTypeMeta(),
        spec: refProp(`${AUTHZ_V1}.SelfSubjectRulesReviewSpec`, 'The namespace to list rules for.', { default: {} }),
        status: refProp(`${AUTHZ_V1}.SubjectRulesReviewStatus`, 'The rules, filled in by the server.', { default: {} }),
      },
      { required: ['spec'], gvk: gvk('SelfSubjectRulesReview') },
    ),
    [`${AUTHZ_V1}.SelfSubjectRulesReviewSpec`]: objectSchema('The namespace of a rules review.', {
      namespace: stringProp('Namespace to evaluate rules for. Required.'),
    }),
    [`${AUTHZ_V1}.SubjectRulesReviewStatus`]: objectSchema(
      'The rules of a subject; may be incomplete when an authorizer cannot list them.',
      {
        evaluationError: stringProp('An error met while listing rules.'),
        incomplete: booleanProp('True when the rules are incomplete.', { default: false }),
        nonResourceRules: refArrayProp('Actions allowed on non-resource URLs.', `${AUTHZ_V1}.NonResourceRule`, atomic),
        resourceRules: refArrayProp('Actions allowed on resources.', `${AUTHZ_V1}.ResourceRule`, atomic),
      },
      { required: ['resourceRules', 'nonResourceRules', 'incomplete'] },
    ),
    [`${AUTHZ_V1}.ResourceRule`]: objectSchema(
      'Verbs allowed on resources.',
      {
        apiGroups: stringArrayProp('API groups; "*" means all.', atomic),
        resourceNames: stringArrayProp('Names the rule is limited to.', atomic),
        resources: stringArrayProp('Resources; "*" means all.', atomic),
        verbs: stringArrayProp('Verbs; "*" means all.', atomic),
      },
      { required: ['verbs'] },
    ),
    [`${AUTHZ_V1}.NonResourceRule`]: objectSchema(
      'Verbs allowed on non-resource URLs.',
      {
        nonResourceURLs: stringArrayProp('Partial URLs; a trailing "*" matches a prefix.', atomic),
        verbs: stringArrayProp('Verbs; "*" means all.', atomic),
      },
      { required: ['verbs'] },
    ),
  };
}
