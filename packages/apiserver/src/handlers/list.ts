import type { HandlerResult, RequestScope } from './scope.js';
import { parseListQuery } from './list-options.js';
import { rawJsonListStream } from './list-stream.js';
import { selectionPredicate } from './selectors.js';
import type { ListRequest } from '../registry/registry-types.js';
import type { KubeObject } from '@cluster/apimachinery';
import { withTypeMeta } from './get.js';

/** GET of a collection (SPEC 4.4, 4.5): selectors, resourceVersion semantics and chunking. */
export async function listResource(scope: RequestScope): Promise<HandlerResult> {
  const q = parseListQuery(scope.query, false);
  const predicate = selectionPredicate(scope.registry, q.labelSelector, q.fieldSelector);
  const info = scope.registry.info;
  // Items stored in another version get this version's apiVersion (None conversion), so they are parsed.
  const converts = info.storageVersion !== undefined && info.storageVersion !== info.version;
  const req: ListRequest = { limit: q.limit, predicate, hasSelector: predicate !== undefined, raw: scope.plainJsonResponse && !converts };
  switch (q.semantic.kind) {
    case 'Continue':
      req.continueToken = q.semantic.token;
      break;
    case 'Exact':
      req.resourceVersion = q.semantic.resourceVersion;
      req.resourceVersionMatch = 'Exact';
      break;
    case 'NotOlderThan':
      req.resourceVersion = q.semantic.resourceVersion;
      req.resourceVersionMatch = 'NotOlderThan';
      break;
    case 'Any':
      // Served from the watch cache.
      req.resourceVersion = '0';
      break;
    default:
      break;
  }
  const list = await scope.registry.list(scope.info.namespace, req);
  if (list.rawItems) {
    // The stored bytes of each item go out as they are; only the envelope is serialized here.
    const { rawItems, items: _items, sharedItems: _shared, ...envelope } = list;
    return { code: 200, object: envelope as unknown as KubeObject, isList: true, json: rawJsonListStream(envelope, rawItems, scope.flow) };
  }
  // Items keep their apiVersion/kind (upstream omits them; clients accept both). They may be shared
  // watch-cache objects and must not be modified.
  const { sharedItems, ...body } = list;
  if (converts) body.items = body.items.map((item) => withTypeMeta(scope, item));
  return { code: 200, object: body as unknown as KubeObject, isList: true, sharedItems: sharedItems === true && !converts };
}
