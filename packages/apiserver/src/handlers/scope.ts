import type { AdmissionReport } from '../admission/admission.js';
import type { Readable } from 'node:stream';
import type { JsonObject, KubeObject, Status } from '@cluster/apimachinery';
import type { GenericRegistry } from '../registry/generic-registry.js';
import type { RequestInfo } from '../request/request-info.js';
import type { UserInfo } from '../authn/user.js';
import type { Authorizer } from '../authz/authorizer.js';
import type { SliceOwner } from '../flowcontrol/slice-scheduler.js';

/** Encodes and decodes the Protobuf wire form (SPEC 2.7); supplied by the codec package. */
export interface ProtobufCodec {
  decode(bytes: Uint8Array): KubeObject;
  encode(obj: KubeObject | Status): Uint8Array;
  /** Whether `kind` of `apiVersion` has a Protobuf schema. */
  supports(apiVersion: string, kind: string): boolean;
  /**
   * Decodes a Protobuf DeleteOptions body into its JSON form (any group version in the envelope).
   * @throws StatusError 400 for undecodable bytes or another kind.
   */
  decodeDeleteOptions(bytes: Uint8Array): JsonObject;
}

export type { UserInfo } from '../authn/user.js';

/** Everything a generic handler needs about one request; no Koa types. */
export interface RequestScope {
  registry: GenericRegistry;
  info: RequestInfo;
  query: URLSearchParams;
  body: Buffer | undefined;
  contentType: string | undefined;
  user: UserInfo;
  userAgent: string;
  protobuf: ProtobufCodec | undefined;
  /** Decodes Protobuf DeleteOptions, for custom resources too (upstream's meta scheme serves them). */
  decodeProtobufDeleteOptions?: (bytes: Uint8Array) => JsonObject;
  /** --api-domain: suffix of built-in group names (meta.<domain>, ...). */
  apiDomain: string;
  /** The response is plain JSON: handlers may answer with JSON bytes they already have. */
  plainJsonResponse: boolean;
  /** The request's authorizer, for checks a handler makes itself (create through PUT or apply). */
  authorizer?: Authorizer;
  /** Cancelled when the client goes away (used by long reads and watches). */
  signal: AbortSignal;
  /** Told the decoded body of a create, for the audit event's objectRef (absent when not audited). */
  onRequestObject?: (obj: KubeObject) => void;
  /** Where admission webhooks leave warnings and audit annotations (the request state itself). */
  report?: AdmissionReport;
  /** The request's priority level and flow, whose turns a large response's slices take. */
  flow?: SliceOwner;
  /** A watch calls this once its initial events are written (priority and fairness frees its seat). */
  watchInitialized?: (() => void) | undefined;
}

/** What a handler answers: a status code and an object (or Status), plus Warning header texts. */
export interface HandlerResult {
  code: number;
  object: KubeObject | Status;
  /** When true the object is a list to be rendered as one (Table rows etc.). */
  isList?: boolean;
  /** A list whose items are the watch cache's unmodifiable objects: their encodings may be kept (ItemEncodings). */
  sharedItems?: boolean;
  /** The response body as JSON bytes or a stream of them, when the handler built it (only with plainJsonResponse). */
  json?: Buffer | Readable;
  warnings?: string[];
}
