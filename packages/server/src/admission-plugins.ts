import { ownerReferencesPermissionEnforcement, OWNER_REFERENCES_PERMISSION_ENFORCEMENT, type AdmissionPlugin, type Authorizer, type KindMapping, type RegistrySet } from '@cluster/apiserver';

/**
 * Upstream kube-apiserver's default-on admission plugins: naming one in --enable-admission-plugins
 * changes nothing (what this server has of them always runs).
 */
const UPSTREAM_DEFAULT_ON = [
  'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'DefaultStorageClass', 'PersistentVolumeClaimResize',
  'DefaultTolerationSeconds', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota',
  'StorageObjectInUseProtection', 'Priority', 'TaintNodesByCondition', 'RuntimeClass', 'CertificateApproval',
  'CertificateSigning', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'PodSecurity',
  // On here always, as SPEC's node identity needs it (kube-apiserver leaves it to the flag).
  'NodeRestriction',
];

/** Off unless named in --enable-admission-plugins, as upstream; the ones this server implements. */
const OPT_IN = [OWNER_REFERENCES_PERMISSION_ENFORCEMENT];

/** Start-up errors for --enable-admission-plugins (upstream's wording for unknown names). */
export function admissionPluginErrors(enabled: readonly string[]): string[] {
  return enabled
    .filter((n) => !UPSTREAM_DEFAULT_ON.includes(n) && !OPT_IN.includes(n))
    .map((n) => `enable-admission-plugins plugin "${n}" is unknown or not supported by this server (opt-in plugins supported: ${OPT_IN.join(', ')})`);
}

/**
 * The opt-in plugins named in --enable-admission-plugins, in upstream's order; they run after the
 * built-in validating plugins and before the webhooks. Owner kinds map through the registries
 * served now (custom resources included).
 */
export function optInAdmissionPlugins(enabled: readonly string[], authorizer: () => Authorizer, registries: () => RegistrySet): AdmissionPlugin[] {
  const plugins: AdmissionPlugin[] = [];
  if (enabled.includes(OWNER_REFERENCES_PERMISSION_ENFORCEMENT)) {
    const mappingsOf = (group: string, version: string, kind: string): KindMapping[] =>
      registries()
        .all()
        .filter((r) => r.info.group === group && r.info.version === version && r.info.kind === kind)
        .map((r) => ({ group, version, resource: r.info.resource, namespaced: r.info.namespaced }));
    plugins.push(ownerReferencesPermissionEnforcement(authorizer, mappingsOf));
  }
  return plugins;
}
