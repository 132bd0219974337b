import { newMethodNotSupported } from '@cluster/apimachinery';
import type { HandlerResult, RequestScope } from './scope.js';
import { getResource } from './get.js';
import { listResource } from './list.js';
import { createResource } from './create.js';
import { updateResource } from './update.js';
import { patchResource } from './patch.js';
import { deleteCollection, deleteResource } from './delete.js';

type Handler = (scope: RequestScope) => Promise<HandlerResult>;

const handlers: Record<string, Handler> = {
  get: getResource,
  list: listResource,
  create: createResource,
  update: updateResource,
  patch: patchResource,
  delete: deleteResource,
  deletecollection: deleteCollection,
};

/**
 * Dispatches a resource request to the generic handler of its verb. Verbs the resource does not
 * serve (per its ResourceInfo) are 405 MethodNotAllowed, as upstream answers.
 */
export function handleResource(scope: RequestScope): Promise<HandlerResult> {
  const verb = scope.info.verb;
  const handler = handlers[verb];
  const sub = scope.info.subresource ? scope.registry.info.subresources?.find((s) => s.name === scope.info.subresource) : undefined;
  const served = (sub ? sub.verbs : scope.registry.info.verbs) as readonly string[];
  const named = scope.info.name !== '';
  // POST names a collection or a creatable subresource (serviceaccounts/token); PUT and PATCH name one object.
  const postsToSubresource = !!sub && !!scope.registry.operations.subresourceCreaters?.[sub.name];
  const wrongTarget = (verb === 'create' && named && !postsToSubresource) || ((verb === 'update' || verb === 'patch') && !named);
  if (!handler || !served.includes(verb) || wrongTarget) {
    throw newMethodNotSupported(scope.registry.groupResource, actionName(verb));
  }
  return handler(scope);
}

function actionName(verb: string): string {
  return verb || 'method';
}
