import type { JsonObject, KubeObject, Status } from '@cluster/apimachinery';
import type { Store } from '@cluster/storage';
import type { UserInfo } from '../authn/user.js';
import type { ResourceInfo } from './resource-info.js';
import type { ResourceStrategy } from './strategy.js';

/** One served resource: what it is (discovery, OpenAPI, routing) and how it behaves. */
export interface ResourceRegistration extends RegistrationOperations {
  info: ResourceInfo;
  // Strategies are typed on their own kind; the registry only hands them objects of that kind.
  strategy: ResourceStrategy<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /**
   * The shape request bodies are decoded with when it differs from the published definition:
   * custom resources decode by structure only (unknown fields pruned) and leave types to validation.
   */
  decodeDefinition?: JsonObject;
}

/** The request a virtual create or a subresource creater answers. */
export interface OperationRequest {
  user: UserInfo;
  /** From the URL; '' for cluster-scoped resources. */
  namespace: string;
  dryRun: boolean;
}

/**
 * A virtual resource type (SPEC 1 "Terminology"): POST to its collection runs `create` on the
 * decoded body (its own kind) and answers the returned object with 201; nothing is stored. The
 * review APIs (TokenReview, SubjectAccessReview, ...) are virtual.
 */
export interface VirtualCreate {
  /** Throws a StatusError for a bad request (422 Invalid with field causes, as upstream). */
  create(req: OperationRequest, body: KubeObject): Promise<KubeObject>;
}

/**
 * POST to `<object>/<subresource>` with a body of the subresource's kind (e.g.
 * serviceaccounts/token takes a TokenRequest): `create` gets the stored parent object and answers
 * the returned object with 201. Nothing is stored unless the creater writes through a client.
 */
export interface SubresourceCreater {
  create(req: OperationRequest & { name: string }, parent: KubeObject, body: KubeObject): Promise<KubeObject>;
}

/**
 * A v1 Status as the answer of a creater (pods/eviction) or virtual create (bindings): the create
 * handler sends it as is, with 201.
 */
export function statusAnswer(status: Status): KubeObject {
  return { ...status } as unknown as KubeObject;
}

/** Operations a registration may add beyond the generic store. */
export interface RegistrationOperations {
  /** Set for virtual resource types: the collection serves only `create`, and nothing is stored. */
  virtual?: VirtualCreate;
  /** Subresources served by POST, by subresource name (also listed in info.subresources with verb create). */
  subresourceCreaters?: Record<string, SubresourceCreater>;
  /** Values from a shared pool (cluster IPs, node ports) that objects of the kind hold, kept in `store`. */
  allocations?: (store: Store) => ObjectAllocations;
  /** Set when the objects are kept as another resource's (events/v1 over core/v1 events). */
  storedAs?: StorageConversion;
  /** Set for read-only resources computed on each read, never stored (core/v1 componentstatuses). */
  computed?: ComputedReads;
}

/**
 * A resource whose objects are made on each read (upstream's ComponentStatus REST): `list` gives
 * every object (the registry applies the request's selectors), `get` one by name; both throw a
 * StatusError when the object cannot be made.
 */
export interface ComputedReads {
  list(): Promise<KubeObject[]>;
  get(name: string): Promise<KubeObject>;
}

/**
 * A resource served over the stored objects of another group/resource, converted field by field
 * on every read and write (upstream stores one internal form for all versions; here the stored
 * form is the other resource's served form).
 */
export interface StorageConversion {
  /** Group ('' for core) and resource whose keys hold the objects. */
  group: string;
  resource: string;
  /** The served object as stored (its apiVersion becomes the stored resource's). Must not change `obj`. */
  toStorage(obj: KubeObject): KubeObject;
  /** A stored object as served. Must not change `obj` (watch events are shared). */
  fromStorage(obj: KubeObject): KubeObject;
}

/**
 * Values handed out from a cluster-wide pool along with an object's writes (upstream's service
 * IP and node port allocators). The generic registry reserves before it stores an object and
 * settles the reservation after: kept when the write is stored, released when it fails, so a
 * failed or retried write leaks nothing. A removed object's values are freed after its delete.
 */
export interface ObjectAllocations {
  /**
   * Reserves what `obj` (validated, about to be stored) needs beyond what `old` holds, filling the
   * allocated fields of `obj`. Throws a StatusError (422 for a requested value that is taken or
   * out of range). A dry run checks without reserving.
   */
  reserve(obj: KubeObject, old: KubeObject | undefined, dryRun: boolean): Promise<Reservation>;
  /** Frees every value a removed object held. Never throws. */
  releaseAll(obj: KubeObject): Promise<void>;
  /**
   * Frees values whose owner does not hold them (left by a replica that died between claiming and
   * storing, or between deleting and releasing) once they are older than a grace period that
   * covers a write in flight. Returns how many were freed.
   */
  repair?(now: Date): Promise<number>;
}

export interface Reservation {
  /** What this reservation holds (opaque keys), so a retried write keeps what its last attempt reuses. */
  readonly held: readonly string[];
  /** The write was stored: free what the old object held and the new one does not. Never throws. */
  commit(): Promise<void>;
  /** The write failed or was retried: free what this reservation took, except `keep`. Never throws. */
  release(keep?: ReadonlySet<string>): Promise<void>;
}
