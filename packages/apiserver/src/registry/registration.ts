import type { JsonObject, KubeObject } from '@cluster/apimachinery';
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

/** Operations a registration may add beyond the generic store. */
export interface RegistrationOperations {
  /** Set for virtual resource types: the collection serves only `create`, and nothing is stored. */
  virtual?: VirtualCreate;
  /** Subresources served by POST, by subresource name (also listed in info.subresources with verb create). */
  subresourceCreaters?: Record<string, SubresourceCreater>;
}
