import type { JsonObject } from '@cluster/apimachinery';

/** Verbs a resource endpoint serves, as discovery lists them. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * Everything the generic machinery (handlers, discovery, OpenAPI) needs to know about one served
 * resource at one group/version. Built once per registration; never branched on by kind.
 */
export interface ResourceInfo {
  group: string; // '' for core
  version: string;
  resource: string; // plural, e.g. configmaps
  singularName: string; // configmap
  kind: string; // ConfigMap
  listKind: string; // ConfigMapList
  namespaced: boolean;
  verbs: readonly Verb[];
  shortNames?: readonly string[];
  categories?: readonly string[];
  /** Subresources served, e.g. status, approval, token, with their own kind and verbs. */
  subresources?: readonly SubresourceInfo[];
  /**
   * OpenAPI definition name of the kind, e.g. `io.k8s.api.core.v1.ConfigMap`; the schema itself is
   * registered in the definitions table passed to the OpenAPI builders.
   */
  definitionName: string;
  /**
   * Set for removed versions served again only through --runtime-config (SPEC 9.4): every request
   * gets a Warning header, audit annotations and the deprecated-APIs gauge (SPEC 9.3 rule 10).
   */
  deprecated?: { deprecatedRelease: string; removedRelease: string; replacementApiVersion: string };
  /**
   * Version objects are stored in, when it differs from `version` (removed versions round-trip to
   * the stored one); discovery derives `storageVersionHash` from it. Defaults to `version`.
   */
  storageVersion?: string;
  /**
   * Served from a CustomResourceDefinition (added and removed at run time): no Protobuf either way
   * and no strategic merge patch, as upstream answers for custom resources; not subject to
   * --runtime-config.
   */
  customResource?: boolean;
  /**
   * On unless --runtime-config turns it off, whatever its stability (upstream's betas introduced
   * before 1.24, and deprecated versions not yet removed, e.g. flowcontrol v1beta1).
   */
  servedByDefault?: boolean;
  /**
   * Set for a built-in resource upstream deprecated but still serves by default (core/v1
   * ComponentStatus since 1.19): `<apiVersion> <Kind> is deprecated in v<release>+`, with the audit
   * annotation and the deprecated-APIs gauge (removed_release "") as for removed versions.
   */
  deprecatedSince?: string;
  /** Warning sent with every request to a version its definer deprecated (CRD `deprecated: true`). */
  deprecationWarning?: string;
}

export interface SubresourceInfo {
  name: string;
  /** Group and version of `kind` when they differ from the parent's (serviceaccounts/token is authentication/v1 TokenRequest). */
  group?: string;
  version?: string;
  kind: string;
  /**
   * Other apiVersions (same kind, same fields) a POSTed body may carry, converted to the served one
   * (upstream's AcceptsGroupVersion: pods/eviction takes policy/v1 and policy/v1beta1 Evictions).
   */
  alsoAcceptedVersions?: readonly string[];
  verbs: readonly Verb[];
  definitionName: string;
}

/** OpenAPI v2-style schema object (also valid inside an OpenAPI v3 components.schemas). */
export type SchemaObject = JsonObject;

/** Definitions keyed by definition name (`io.k8s.api.core.v1.ConfigMap`). */
export type Definitions = Record<string, SchemaObject>;
