import type { ResourceRegistration } from '../registry/registration.js';
import type { Definitions, ResourceInfo } from '../registry/resource-info.js';
import { configMaps } from './core/configmaps/register.js';
import { namespaces } from './core/namespaces/register.js';
import { coreDefinitions } from './core/schemas.js';
import { secrets } from './core/secrets/register.js';
import { serviceAccounts } from './core/serviceaccounts/register.js';
import type { TokenRequestDeps } from './core/serviceaccounts/token-request.js';
import { tokenRequestDefinitions } from './core/serviceaccounts/token-request-schemas.js';
import { certificateSigningRequests } from './certificates/certificatesigningrequests/register.js';
import { certificatesDefinitions } from './certificates/schemas.js';
import { leases } from './coordination/leases/register.js';
import { coordinationDefinitions } from './coordination/schemas.js';
import { clusterRoles, roles } from './rbac/roles/register.js';
import { clusterRoleBindings, roleBindings } from './rbac/rolebindings/register.js';
import { rbacDefinitions } from './rbac/schemas.js';
import { alwaysDeny, type Authorizer } from '../authz/authorizer.js';
import { authenticationDefinitions } from './authentication/schemas.js';
import { selfSubjectReviews } from './authentication/selfsubjectreviews/register.js';
import type { TokenReviewDeps } from './authentication/tokenreviews/review.js';
import { tokenReviews } from './authentication/tokenreviews/register.js';
import { authorizationDefinitions } from './authorization/schemas.js';
import { localSubjectAccessReviews } from './authorization/localsubjectaccessreviews/register.js';
import { selfSubjectAccessReviews } from './authorization/selfsubjectaccessreviews/register.js';
import { selfSubjectRulesReviews } from './authorization/selfsubjectrulesreviews/register.js';
import { subjectAccessReviews } from './authorization/subjectaccessreviews/register.js';
import { removedVersionDefinitions, removedVersionRegistrations } from './removed-versions.js';
import { bindings, pods } from './core/pods/register.js';
import { bindingDefinitions } from './core/pods/binding.js';
import { evictionDefinitions } from './core/pods/eviction.js';
import type { RegistrySet } from '../registry/registry-set.js';
import { podTemplates } from './core/podtemplates/register.js';
import { replicationControllers } from './core/replicationcontrollers/register.js';
import { podDefinitions } from './core/pod-schemas.js';
import { deployments } from './apps/deployments/register.js';
import { replicaSets } from './apps/replicasets/register.js';
import { statefulSets } from './apps/statefulsets/register.js';
import { daemonSets } from './apps/daemonsets/register.js';
import { controllerRevisions } from './apps/controllerrevisions/register.js';
import { appsDefinitions } from './apps/schemas.js';
import { APPS_GROUP, AUTOSCALING_GROUP } from './apps/workload/register.js';
import { autoscalingDefinitions } from './autoscaling/schemas.js';
import { customResourceDefinitions } from './apiextensions/customresourcedefinitions/register.js';
import { apiextensionsDefinitions } from './apiextensions/schemas.js';
import { apiextensionsV1beta1Definitions } from './apiextensions/schemas-v1beta1.js';
import { legacyScaleDefinitions } from './apps/legacy/legacy-scale.js';
import { clusterKindDefinitions } from './core/cluster-kinds-schemas.js';
import { services } from './core/services/register.js';
import type { ServiceAllocatorOptions } from './core/services/allocator.js';
import { parseIPv4Range, parsePortRange } from './core/services/ip-range.js';
import { endpoints } from './core/endpoints/register.js';
import { nodes } from './core/nodes/register.js';
import { coreEvents, eventsV1 } from './core/events/register.js';
import { limitRanges, resourceQuotas } from './core/quotas/register.js';
import { endpointSlices } from './discovery/endpointslices/register.js';
import { jobs } from './batch/jobs/register.js';
import { cronJobs } from './batch/cronjobs/register.js';
import { podDisruptionBudgets } from './policy/poddisruptionbudgets/register.js';
import { ingresses } from './networking/ingresses/register.js';
import { ingressClasses } from './networking/ingressclasses/register.js';
import { networkPolicies } from './networking/networkpolicies/register.js';
import { runtimeClasses } from './node/runtimeclasses/register.js';
import { priorityClasses } from './scheduling/priorityclasses/register.js';
import { persistentVolumes } from './core/persistentvolumes/register.js';
import { storageResources } from './storage/register.js';
import { componentStatuses, type ComponentProbe } from './core/componentstatuses/register.js';
import { horizontalPodAutoscalersV1, horizontalPodAutoscalersV2, horizontalPodAutoscalersV2beta1, horizontalPodAutoscalersV2beta2 } from './autoscaling/horizontalpodautoscalers/register.js';
import { persistentVolumeClaims } from './core/persistentvolumeclaims/register.js';
import { webhookConfigurations } from './admissionregistration/register.js';
import { admissionRegistrationDefinitions } from './admissionregistration/schemas.js';
import { moreKindDefinitions } from './more-kinds-schemas.js';
import { apiServices } from './apiregistration/register.js';
import { apiRegistrationDefinitions } from './apiregistration/schemas.js';
import { flowControlResources } from './flowcontrol/register.js';
import { flowControlDefinitions } from './flowcontrol/schemas.js';

/** What the identity resources need of the server: token issuing, token review and the authorizer. */
export interface IdentityDeps {
  tokens?: TokenRequestDeps;
  /** The review APIs are served when both are given. */
  tokenReview?: TokenReviewDeps;
  authorizer?: Authorizer;
  /** The served registries, read by subresources acting on other kinds (pods/eviction charges PodDisruptionBudgets). */
  registries?: () => RegistrySet | undefined;
}

/** Every resource this server serves: adding one is one strategy module plus one line here. */
export function builtinResources(
  apiDomain: string,
  identity: IdentityDeps = {},
  serviceRanges: ServiceAllocatorOptions = defaultServiceRanges(),
  eventTtlSeconds?: number,
  componentProbe?: ComponentProbe,
): ResourceRegistration[] {
  const current = [
    namespaces,
    configMaps,
    secrets(apiDomain),
    serviceAccounts(apiDomain, identity.tokens),
    leases(apiDomain),
    certificateSigningRequests(apiDomain),
    ...rbacResources(apiDomain),
    ...reviewResources(apiDomain, identity),
    pods(apiDomain, () => identity.registries?.()),
    bindings(() => identity.registries?.()),
    podTemplates,
    replicationControllers,
    deployments,
    replicaSets,
    statefulSets,
    daemonSets,
    controllerRevisions,
    customResourceDefinitions(apiDomain),
    services(serviceRanges),
    endpoints,
    nodes,
    coreEvents(eventTtlSeconds),
    eventsV1(apiDomain, eventTtlSeconds),
    limitRanges,
    resourceQuotas,
    endpointSlices(apiDomain),
    jobs,
    cronJobs,
    podDisruptionBudgets,
    ingresses(apiDomain),
    ingressClasses(apiDomain),
    networkPolicies(apiDomain),
    runtimeClasses(apiDomain),
    priorityClasses(apiDomain),
    persistentVolumes,
    persistentVolumeClaims,
    ...storageResources(apiDomain),
    horizontalPodAutoscalersV2,
    horizontalPodAutoscalersV1,
    horizontalPodAutoscalersV2beta2,
    horizontalPodAutoscalersV2beta1,
    componentStatuses(componentProbe),
    ...webhookConfigurations(apiDomain),
    apiServices(apiDomain),
    ...flowControlResources(apiDomain),
  ];
  return [...current, ...removedVersionRegistrations(apiDomain, current)];
}

/**
 * What every built-in resource is (group, version, name, ...), for checks made before a server
 * exists (--runtime-config at flag parsing). The review kinds need deps to serve; stand-ins that
 * are never called are enough to describe them.
 */
export function builtinResourceInfos(apiDomain: string): ResourceInfo[] {
  return builtinResources(apiDomain, describeOnlyDeps()).map((r) => r.info);
}

/** Stand-in deps that let the review kinds be described; never called. */
function describeOnlyDeps(): IdentityDeps {
  return {
    authorizer: alwaysDeny,
    tokenReview: { tokens: { judge: async () => ({ unknown: true }) }, apiAudiences: [] },
  };
}

/** OpenAPI definitions of every served kind (meta/v1 comes from apimachinery). */
export function builtinDefinitions(apiDomain: string): Definitions {
  const current: Definitions = {
    ...coreDefinitions(apiDomain),
    ...tokenRequestDefinitions(apiDomain),
    ...coordinationDefinitions(apiDomain),
    ...rbacDefinitions(apiDomain),
    ...authenticationDefinitions(apiDomain),
    ...authorizationDefinitions(apiDomain),
    ...certificatesDefinitions(apiDomain),
    ...podDefinitions(),
    ...evictionDefinitions(),
    ...bindingDefinitions(),
    ...appsDefinitions(APPS_GROUP),
    ...autoscalingDefinitions(AUTOSCALING_GROUP),
    ...apiextensionsDefinitions(apiDomain),
    ...apiextensionsV1beta1Definitions(apiDomain),
    ...legacyScaleDefinitions(),
    ...clusterKindDefinitions(apiDomain),
    ...moreKindDefinitions(apiDomain),
    ...admissionRegistrationDefinitions(apiDomain),
    ...apiRegistrationDefinitions(apiDomain),
    ...flowControlDefinitions(apiDomain),
  };
  const describeOnly = builtinResources(apiDomain, describeOnlyDeps());
  return { ...current, ...removedVersionDefinitions(apiDomain, describeOnly, current) };
}

/** The virtual review kinds of authentication/v1 and authorization/v1. */
function reviewResources(apiDomain: string, identity: IdentityDeps): ResourceRegistration[] {
  const { authorizer, tokenReview } = identity;
  if (!authorizer || !tokenReview) return [];
  return [
    tokenReviews(apiDomain, tokenReview),
    selfSubjectReviews(apiDomain),
    subjectAccessReviews(apiDomain, authorizer),
    selfSubjectAccessReviews(apiDomain, authorizer),
    localSubjectAccessReviews(apiDomain, authorizer),
    selfSubjectRulesReviews(apiDomain, authorizer),
  ];
}

function rbacResources(apiDomain: string): ResourceRegistration[] {
  return [roles(apiDomain), roleBindings(apiDomain), clusterRoles(apiDomain), clusterRoleBindings(apiDomain)];
}

/** Upstream's defaults of --service-cluster-ip-range and --service-node-port-range. */
export function defaultServiceRanges(): ServiceAllocatorOptions {
  return { ipRange: parseIPv4Range('10.0.0.0/24'), nodePorts: parsePortRange('30000-32767') };
}
