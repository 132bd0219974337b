import { StatusError, type KubeList, type KubeObject, type ListMeta } from '@cluster/apimachinery';

/**
 * The metadata-only views a client asks for with `Accept: application/json;as=PartialObjectMetadata`
 * (one object, and each event of a watch) or `as=PartialObjectMetadataList` (a list), in
 * `meta.<apiDomain>/v1` or `v1beta1` (`apiVersion`). Metadata-only informers (client-go's
 * metadata client: the garbage collector, the resource quota controller) decode nothing else.
 * Pure; throws 406 NotAcceptable when the view does not fit the result, as upstream.
 * <- k8s.io/apiserver pkg/endpoints/handlers/response.go asPartialObjectMetadata(List)
 */
export function asPartialObjectMetadata(object: KubeObject, isList: boolean, apiVersion: string): KubeObject {
  if (isList) throw notAcceptable('you requested PartialObjectMetadata, but the requested object is a list');
  return partial(object, apiVersion);
}

/** The list view: only the list's resourceVersion and continue token are kept, items are metadata only. */
export function asPartialObjectMetadataList(object: KubeObject | KubeList, isList: boolean, apiVersion: string): KubeList {
  if (!isList) throw notAcceptable('you requested PartialObjectMetadataList, but the requested object is not a list');
  const list = object as KubeList;
  const metadata: ListMeta = {};
  if (list.metadata.resourceVersion !== undefined) metadata.resourceVersion = list.metadata.resourceVersion;
  if (list.metadata.continue) metadata.continue = list.metadata.continue;
  if (list.metadata.remainingItemCount !== undefined) metadata.remainingItemCount = list.metadata.remainingItemCount;
  return { kind: 'PartialObjectMetadataList', apiVersion, metadata, items: list.items.map((o) => partial(o, apiVersion)) };
}

function partial(object: KubeObject, apiVersion: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: object.metadata };
}

function notAcceptable(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'NotAcceptable', code: 406 });
}
