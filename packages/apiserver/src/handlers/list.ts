import type { HandlerResult, RequestScope } from './scope.js';
import { parseListQuery } from './list-options.js';
import { selectionPredicate } from './selectors.js';
import type { ListRequest } from '../registry/generic-registry.js';
import type { KubeObject } from '@cluster/apimachinery';

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** GET of a collection (SPEC 4.4, 4.5): selectors, resourceVersion semantics and chunking. */
export async function listResource(scope: RequestScope): Promise<HandlerResult> {
  const q = parseListQuery(scope.query, false);
  const predicate = selectionPredicate(scope.registry, q.labelSelector, q.fieldSelector);
  const req: ListRequest = { limit: q.limit, predicate, hasSelector: predicate !== undefined, raw: scope.plainJsonResponse };
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
    default:
      // MostRecent and Any both read the current state here; the watch cache serves Any later.
      break;
  }
  const list = await scope.registry.list(scope.info.namespace, req);
  if (list.rawItems) {
    // The stored bytes of each item go out as they are; only the envelope is serialized here.
    const { rawItems, items: _items, ...envelope } = list;
    const head = Buffer.from(`${JSON.stringify(envelope).slice(0, -1)},"items":[`);
    const parts: Buffer[] = [head];
    rawItems.forEach((item, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(item);
    });
    parts.push(CLOSE);
    return { code: 200, object: envelope as unknown as KubeObject, isList: true, json: Buffer.concat(parts) };
  }
  // Items keep their apiVersion/kind (upstream omits them; clients accept both). They may be shared
  // watch-cache objects and must not be modified.
  return { code: 200, object: list as unknown as KubeObject, isList: true };
}
