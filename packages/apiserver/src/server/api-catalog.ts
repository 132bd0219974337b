import {
  isNotFound,
  metaDefinitions,
  openApiV2Definition,
  patchMetaFromOpenApi,
  type JsonObject,
  type KubeObject,
  type OpenApiSchema,
  structuredTypeFromOpenApi,
} from '@cluster/apimachinery';
import { namespaceLifecycle } from '../admission/namespace-lifecycle.js';
import { serviceAccountAdmission } from '../admission/service-account.js';
import { limitRanger, type LimitRangeObject } from '../admission/limit-ranger.js';
import { nodeRestriction } from '../admission/node-restriction.js';
import { defaultIngressClassAdmission } from '../admission/default-ingress-class.js';
import { resourceQuotaPlugin } from '../admission/quota/wiring.js';
import { priorityAdmission, priorityClassLookup } from '../admission/priority.js';
import { defaultStorageClassAdmission } from '../admission/default-storage-class.js';
import { runtimeClassAdmission, type RuntimeClassObject } from '../admission/runtime-class.js';
import type { AdmissionPlugin } from '../admission/admission.js';
import { parseAccept } from '../negotiation/media-type.js';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  groupsFromResources,
  serverGitVersion,
  UNKNOWN_BUILD,
  versionInfo,
  type BuildInfo,
} from '../discovery/index.js';
import { buildOpenApiV2, buildOpenApiV3, buildOpenApiV3Index, openApiV3Path, serializeDocument, type OpenApiV3Set, type SerializedDocument } from '../openapi/index.js';
import { OpenApiV2Forms } from '../openapi/v2-forms.js';
import type { RegistrySet } from '../registry/registry-set.js';
import type { KindSchemas } from '../registry/registry-types.js';
import type { ResourceRegistration } from '../registry/registration.js';
import type { Definitions, ResourceInfo } from '../registry/resource-info.js';
import { builtinDefinitions } from '../resources/builtin.js';
import { mergeExternalGroups, withExternalAggregated, type ExternalGroupVersion } from '../aggregator/discovery-merge.js';
import { localPriority, type ServedGroupVersion } from '../aggregator/priorities.js';
import { mergeOpenApiV2 } from '../aggregator/openapi-v2-merge.js';

export interface ServedDocument {
  contentType: string;
  body: string | Buffer;
  etag?: string;
  cacheControl?: string;
  /** A status other than 200 (406 when no acceptable form exists); the body is then empty. */
  status?: number;
  /** The Vary header, for documents served in more than one form. */
  vary?: string;
}

/**
 * Everything derived once from the registrations: discovery documents, OpenAPI v2/v3 documents
 * (rendered and hashed at start-up, never per request) and strategic-merge metadata per kind.
 */
export class ApiCatalog {
  /** Definitions of every served kind, custom resources included; replaced as a whole on change. */
  definitions: Definitions;
  private readonly baseDefinitions: Definitions;
  private docs = new Map<string, SerializedDocument>();
  /** Aggregated discovery (apidiscovery/v2) of /api and /apis. */
  private aggregated = new Map<string, SerializedDocument>();
  /**
   * The /openapi/v3 set (extensions' documents added) and that of the resources served here, each
   * rendered on the first request that needs it after a rebuild: ~3 MiB of JSON per serving
   * process that no client may ever ask for, and the CPU of every group version's document on
   * each change of the custom resources. `openApiV3Input` is what the local set is rendered from.
   */
  private openApiV3Set: OpenApiV3Set | undefined;
  private localOpenApiV3Set: OpenApiV3Set | undefined;
  private openApiV3Input!: Parameters<typeof buildOpenApiV3>[0];
  /** The /openapi/v2 document of the current build (extensions' merged in), and its Protobuf form once a client asked for it. */
  private openApiV2!: OpenApiV2Forms;
  /**
   * The /openapi/v2 document of the resources served here as JSON (as objects it would hold ~6 MiB
   * for the rare merge of extensions' documents), and which of those are merged into `openApiV2`.
   */
  private localOpenApiV2Json!: string;
  private openApiV2Key = '';
  private kindSchemas = new Map<string, KindSchemas>();
  /** `definitions` as /openapi/v2 publishes them. */
  private definitionsV2: Definitions;
  private custom: readonly ResourceRegistration[] = [];
  private external: readonly ExternalGroupVersion[] = [];
  private served: ServedGroupVersion[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly registrations: readonly ResourceRegistration[],
    private readonly apiDomain: string,
    private readonly serverAddress: string,
    /** What /version reports about the running build. */
    private readonly buildInfo: BuildInfo = UNKNOWN_BUILD,
  ) {
    this.baseDefinitions = { ...metaDefinitions(apiDomain), ...builtinDefinitions(apiDomain) };
    this.definitions = this.baseDefinitions;
    this.definitionsV2 = this.baseDefinitions;
    this.build([]);
  }

  /**
   * Rebuilds every document with `custom` (resources defined at run time) served beside the
   * built-in resources and `customDefinitions` beside the built-in definitions. Documents are
   * swapped in at once; requests in flight keep the ones they read.
   */
  setCustomResources(custom: readonly ResourceRegistration[], customDefinitions: Definitions): void {
    this.definitions = { ...this.baseDefinitions, ...customDefinitions };
    const v2: Definitions = {};
    for (const [name, def] of Object.entries(customDefinitions)) v2[name] = openApiV2Definition(def);
    this.definitionsV2 = { ...this.baseDefinitions, ...v2 };
    this.kindSchemas = new Map();
    this.build(custom);
  }

  private build(custom: readonly ResourceRegistration[]): void {
    this.custom = custom;
    const apiDomain = this.apiDomain;
    const resources: ResourceInfo[] = [...this.registrations, ...custom].map((r) => r.info);
    const json = (doc: JsonObject) => serializeDocument(doc);
    const opts = { resources, definitions: this.definitions, apiDomain };
    const gitVersion = serverGitVersion(this.buildInfo);
    // Custom resources' definitions in their v2 form (upstream's CRD builder for V2).
    const openApiV2 = buildOpenApiV2({ ...opts, definitions: this.definitionsV2, version: { gitVersion } });
    this.openApiV3Input = { ...opts, versionInfo: { gitVersion } };
    this.localOpenApiV3Set = undefined;
    this.openApiV3Set = undefined;
    this.openApiV2Key = openApiV2Key(this.external);
    this.openApiV2 = new OpenApiV2Forms(withExternalOpenApiV2(openApiV2, this.external));
    // With no extension's document merged in, the served JSON is the local document's.
    this.localOpenApiV2Json = this.openApiV2Key === '' ? this.openApiV2.jsonBody : JSON.stringify(openApiV2);
    this.served = [];
    const seen = new Set<string>();
    for (const r of resources) {
      const key = `${r.group}/${r.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.served.push({ group: r.group, version: r.version, custom: r.customResource === true });
    }
    this.buildDiscovery(resources, json);
    for (const listener of this.listeners) listener();
  }

  /**
   * The discovery documents of the local resources and of the extensions' available group
   * versions (their /apis/<group>/<version> is proxied, not served from here).
   */
  private buildDiscovery(resources: readonly ResourceInfo[], json: (doc: JsonObject) => SerializedDocument): void {
    const apiDomain = this.apiDomain;
    const docs = new Map<string, SerializedDocument>();
    const aggregated = new Map<string, SerializedDocument>();
    docs.set('/version', json(versionInfo({ build: this.buildInfo })));
    docs.set('/api', json(apiVersions(this.serverAddress)));
    const localGroups = groupsFromResources(resources);
    const custom = new Set(resources.filter((r) => r.customResource).map((r) => r.group));
    const merged = mergeExternalGroups(localGroups, this.external, (g) => localPriority(g.name, g.versions[0] ?? '', apiDomain, custom.has(g.name)).group);
    docs.set('/apis', json(apiGroupList(merged.groups)));
    for (const g of merged.groups) {
      docs.set(`/apis/${g.name}`, json(apiGroup(g)));
      for (const v of g.versions) {
        if (!merged.external.has(`${g.name}/${v}`)) docs.set(`/apis/${g.name}/${v}`, json(apiResourceList(`${g.name}/${v}`, resources)));
      }
    }
    const coreVersions = new Set(resources.filter((r) => r.group === '').map((r) => r.version));
    for (const v of coreVersions) docs.set(`/api/${v}`, json(apiResourceList(v, resources)));
    const core = [{ name: '', versions: [...coreVersions] }];
    aggregated.set('/api', json(aggregatedDiscovery(core, resources, apiDomain)));
    aggregated.set('/apis', json(withExternalAggregated(aggregatedDiscovery(merged.groups, resources, apiDomain), merged.groups, this.external)));
    this.docs = docs;
    this.aggregated = aggregated;
  }

  /** The /openapi/v3 set of the current build, rendered now if no request needed it since the last change. */
  private get openApiV3(): OpenApiV3Set {
    this.localOpenApiV3Set ??= buildOpenApiV3(this.openApiV3Input);
    this.openApiV3Set ??= withExternalOpenApiV3(this.localOpenApiV3Set, this.external);
    return this.openApiV3Set;
  }

  /** The group versions served here (built-in and custom), as of the last rebuild. */
  servedGroupVersions(): readonly ServedGroupVersion[] {
    return this.served;
  }

  /** Calls `listener` after every rebuild of the served resources (CRDs coming and going); returns its removal. */
  onResourcesChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Lists the extensions' available group versions in /apis, /apis/<group> and aggregated
   * discovery (replacing the previous set); only discovery documents are rebuilt.
   */
  setExternalGroupVersions(external: readonly ExternalGroupVersion[]): void {
    this.external = external;
    this.openApiV3Set = undefined;
    // The v2 document is one large document: rebuilt only when the extensions' documents changed.
    const v2Key = openApiV2Key(external);
    if (v2Key !== this.openApiV2Key) {
      this.openApiV2Key = v2Key;
      this.openApiV2 = new OpenApiV2Forms(withExternalOpenApiV2(JSON.parse(this.localOpenApiV2Json) as JsonObject, external));
    }
    this.buildDiscovery([...this.registrations, ...this.custom].map((r) => r.info), (doc) => serializeDocument(doc));
  }

  /** A discovery, version or OpenAPI document for `path`, or undefined when it names none. */
  document(path: string, _query: URLSearchParams, accept: string): ServedDocument | undefined {
    const clean = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const aggregated = this.aggregated.get(clean);
    if (aggregated) {
      const version = this.aggregatedVersion(accept);
      if (version) {
        const contentType = `application/json;g=apidiscovery.${this.apiDomain};v=${version};as=APIGroupDiscoveryList`;
        return { contentType, body: aggregated.body, etag: aggregated.etag };
      }
    }
    if (clean === '/openapi/v2') return this.openApiV2.negotiate(accept);
    if (clean === '/openapi/v3') return served(this.openApiV3.index, 'no-cache, private');
    if (clean.startsWith('/openapi/v3/')) {
      const doc = this.openApiV3.documents.get(clean.slice('/openapi/v3/'.length));
      // Documents are addressed by hash, so they may be cached for as long as a client likes.
      return doc ? served(doc, 'public, immutable') : undefined;
    }
    const doc = this.docs.get(clean);
    return doc ? served(doc) : undefined;
  }

  /**
   * The apidiscovery version the client asks for first, if its Accept lists aggregated discovery
   * before plain JSON (kubectl lists v2, v2beta1, then application/json).
   */
  private aggregatedVersion(accept: string): string | undefined {
    for (const r of parseAccept(accept)) {
      if (r.params.as === 'APIGroupDiscoveryList') {
        if (r.params.g === `apidiscovery.${this.apiDomain}` && r.params.v === 'v2') return 'v2';
        continue;
      }
      if (r.type === 'application/json' || r.type === '*/*') return undefined;
    }
    return undefined;
  }

  /**
   * Strategic-merge metadata and the SSA structured type of a kind, from its OpenAPI definition.
   * With `decodeDefinition` (custom resources) request bodies are decoded with that shape instead.
   */
  schemas(definitionName: string, decodeDefinition?: JsonObject): KindSchemas {
    if (decodeDefinition) {
      const decodeName = `${definitionName}.decode`;
      return {
        patchMeta: patchMetaFromOpenApi(this.definitions as Record<string, OpenApiSchema>, definitionName),
        structured: structuredTypeFromOpenApi(this.definitions, definitionName),
        definitions: { ...this.definitions, [decodeName]: decodeDefinition },
        definitionName: decodeName,
      };
    }
    let schemas = this.kindSchemas.get(definitionName);
    if (!schemas) {
      schemas = {
        patchMeta: patchMetaFromOpenApi(this.definitions as Record<string, OpenApiSchema>, definitionName),
        structured: structuredTypeFromOpenApi(this.definitions, definitionName),
        definitions: this.definitions,
        definitionName,
      };
      this.kindSchemas.set(definitionName, schemas);
    }
    return schemas;
  }

  /** The admission chain every server runs, then any extra plugins. */
  defaultAdmission(registries: RegistrySet, extra: readonly AdmissionPlugin[]): AdmissionPlugin[] {
    const namespaces = registries.byResource('', 'namespaces');
    const plugins: AdmissionPlugin[] = [];
    if (namespaces) {
      // The watch cache answers almost every lookup; a miss (a namespace created a moment ago on
      // another replica) is confirmed with a quorum read, as upstream's informer-backed plugin does.
      const lookup = async (name: string) => {
        try {
          return await namespaces.get('', name, '0');
        } catch (e) {
          if (isNotFound(e)) return namespaces.get('', name);
          throw e;
        }
      };
      const peek = (name: string) => namespaces.getCached('', name) ?? undefined;
      plugins.push(namespaceLifecycle(lookup, (name) => namespaces.get('', name), Date.now, peek));
    }
    const pods = registries.byResource('', 'pods');
    const nodes = registries.byResource('', 'nodes');
    const limitRanges = registries.byResource('', 'limitranges');
    if (pods && limitRanges) {
      // Upstream's order: NamespaceLifecycle, LimitRanger, ServiceAccount, NodeRestriction.
      const list = async (namespace: string) => (await limitRanges.list(namespace, { hasSelector: false })).items as LimitRangeObject[];
      plugins.push(limitRanger(list, this.apiDomain));
    }
    const serviceAccounts = registries.byResource('', 'serviceaccounts');
    if (pods) plugins.push(serviceAccountAdmission(this.apiDomain, serviceAccounts && cachedThenQuorum(serviceAccounts)));
    if (pods && nodes) plugins.push(nodeRestriction(this.apiDomain, { getNode: (ns, name) => nodes.get(ns, name), getPod: (ns, name) => pods.get(ns, name) }));
    const priorityClasses = registries.byResource(`scheduling.${this.apiDomain}`, 'priorityclasses');
    if (priorityClasses) plugins.push(priorityAdmission(`scheduling.${this.apiDomain}`, priorityClassLookup(priorityClasses)));
    const storageClasses = registries.byResource(`storage.${this.apiDomain}`, 'storageclasses');
    if (storageClasses) plugins.push(defaultStorageClassAdmission(async () => (await storageClasses.list('', { hasSelector: false })).items));
    const runtimeClasses = registries.byResource(`node.${this.apiDomain}`, 'runtimeclasses');
    if (pods && runtimeClasses) {
      const get = cachedThenQuorum(runtimeClasses);
      plugins.push(runtimeClassAdmission(async (name) => (await get('', name)) as RuntimeClassObject | undefined));
    }
    const ingressClasses = registries.byResource(`networking.${this.apiDomain}`, 'ingressclasses');
    if (ingressClasses) {
      // A most-recent list (served from the watch cache once it is known current): a class marked
      // default a moment ago on another replica is seen, as the next Ingress create expects.
      const list = async () => (await ingressClasses.list('', { hasSelector: false })).items;
      plugins.push(defaultIngressClassAdmission(`networking.${this.apiDomain}`, list));
    }
    // Upstream runs ResourceQuota last, after the validating webhooks: only a request every other
    // plugin admitted is charged.
    const quota = resourceQuotaPlugin(registries, this.apiDomain);
    return [...plugins, ...extra, ...(quota ? [quota] : [])];
  }

  get domain(): string {
    return this.apiDomain;
  }
}

/**
 * The /openapi/v3 set with the documents extensions serve for their available group versions
 * added (a group version served here keeps its own document). Returns a new set.
 */
function withExternalOpenApiV3(local: OpenApiV3Set, external: readonly ExternalGroupVersion[]): OpenApiV3Set {
  const withDocs = external.filter((e) => e.openApiV3 && !local.documents.has(openApiV3Path(e.group, e.version)));
  if (withDocs.length === 0) return local;
  const documents = new Map(local.documents);
  const entries = [...local.entries];
  for (const e of withDocs) {
    const doc = serializeDocument(e.openApiV3!);
    documents.set(openApiV3Path(e.group, e.version), doc);
    entries.push({ group: e.group, version: e.version, hash: doc.hash });
  }
  return { index: serializeDocument(buildOpenApiV3Index(entries)), documents, entries };
}

/** Extensions with a v2 document, in upstream's merge order: group priority, then version priority (both highest first), then name. */
function v2Sources(external: readonly ExternalGroupVersion[]): ExternalGroupVersion[] {
  return external
    .filter((e) => e.openApiV2)
    .sort((a, b) => b.groupPriorityMinimum - a.groupPriorityMinimum || b.versionPriority - a.versionPriority || (`${a.version}.${a.group}` < `${b.version}.${b.group}` ? -1 : 1));
}

/** What the merged /openapi/v2 depends on of the extensions: which documents, in which order. */
function openApiV2Key(external: readonly ExternalGroupVersion[]): string {
  return v2Sources(external)
    .map((e) => `${e.version}.${e.group}:${e.openApiV2!.hash}`)
    .join(',');
}

/** The /openapi/v2 document with the extensions' documents merged in (each for its own group version's paths). */
function withExternalOpenApiV2(local: JsonObject, external: readonly ExternalGroupVersion[]): JsonObject {
  return mergeOpenApiV2(
    local,
    v2Sources(external).map((e) => ({ group: e.group, version: e.version, doc: e.openApiV2!.doc })),
  );
}

/**
 * An admission plugin's read of one object: the watch cache answers almost every lookup; a miss
 * (an object created a moment ago on another replica) is confirmed with a quorum read, as
 * upstream's informer-backed plugins do. Undefined when it does not exist.
 */
function cachedThenQuorum(registry: { get(namespace: string, name: string, resourceVersion?: string): Promise<KubeObject> }): (namespace: string, name: string) => Promise<KubeObject | undefined> {
  return async (namespace, name) => {
    try {
      return await registry.get(namespace, name, '0');
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    try {
      return await registry.get(namespace, name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
}

function served(doc: SerializedDocument, cacheControl?: string): ServedDocument {
  const out: ServedDocument = { contentType: 'application/json', body: doc.body, etag: doc.etag };
  if (cacheControl) out.cacheControl = cacheControl;
  return out;
}
