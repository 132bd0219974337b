import {
  customResourceDefinitionName,
  decodeDefinition,
  listSchema,
  publishedDefinition,
  type CustomResourceDefinition,
} from '@cluster/apimachinery';
import type { ResourceRegistration } from '../../../registry/registration.js';
import type { Definitions, SubresourceInfo } from '../../../registry/resource-info.js';
import { customResourceStrategy } from './strategy.js';
import { readDefaulting } from './read-defaulting.js';
import { SCALE_DEFINITION } from '../schemas.js';
import { compareVersionPriority } from '../../../discovery/version-priority.js';

/** What serving one CRD adds: a registration per served version and their OpenAPI definitions. */
export interface CustomResourceServing {
  registrations: ResourceRegistration[];
  definitions: Definitions;
}

/**
 * The registrations and definitions of a CRD's served versions, under its accepted names (its
 * requested names when none are accepted yet). Objects are stored in the storage version; the
 * other versions read and write the same objects with only apiVersion changed (`None` conversion).
 */
export function customResourceServing(crd: CustomResourceDefinition): CustomResourceServing {
  const spec = crd.spec;
  const group = spec.group ?? '';
  const names = { ...spec.names, ...(crd.status?.acceptedNames?.plural ? crd.status.acceptedNames : {}) };
  const kind = names.kind ?? '';
  const listKind = names.listKind || `${kind}List`;
  const storageVersion = spec.versions?.find((v) => v.storage)?.name;
  const registrations: ResourceRegistration[] = [];
  const definitions: Definitions = {};
  for (const v of spec.versions ?? []) {
    if (!v.served || !v.name) continue;
    const gvk = { group, version: v.name, kind };
    const definitionName = customResourceDefinitionName(gvk);
    const schema = v.schema?.openAPIV3Schema;
    definitions[definitionName] = publishedDefinition(schema, gvk);
    definitions[customResourceDefinitionName({ ...gvk, kind: listKind })] = listSchema(
      definitionName,
      { ...gvk, kind: listKind },
      `List of ${names.plural ?? ''}.`,
    );
    const subresources: SubresourceInfo[] = [];
    if (v.subresources?.status) subresources.push({ name: 'status', kind, verbs: ['get', 'patch', 'update'], definitionName });
    const scale = v.subresources?.scale;
    if (scale) {
      subresources.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'], definitionName: SCALE_DEFINITION });
    }
    registrations.push({
      info: {
        group,
        version: v.name,
        resource: names.plural ?? '',
        singularName: names.singular || kind.toLowerCase(),
        kind,
        listKind,
        namespaced: spec.scope === 'Namespaced',
        verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
        ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
        ...(names.categories?.length ? { categories: names.categories } : {}),
        ...(subresources.length ? { subresources } : {}),
        definitionName,
        ...(storageVersion ? { storageVersion } : {}),
        ...(v.deprecated ? { deprecationWarning: v.deprecationWarning ?? defaultDeprecationWarning(crd, v.name) } : {}),
        customResource: true,
      },
      strategy: customResourceStrategy({
        namespaced: spec.scope === 'Namespaced',
        schema,
        statusSubresource: !!v.subresources?.status,
        columns: v.additionalPrinterColumns ?? [],
        terminating: !!crd.metadata.deletionTimestamp,
        ...(scale?.specReplicasPath && scale.statusReplicasPath
          ? { scale: { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath, labelSelectorPath: scale.labelSelectorPath } }
          : {}),
      }),
      decodeDefinition: decodeDefinition(schema),
    });
    const storage = spec.versions?.find((s) => s.storage) ?? v;
    const storedAs = readDefaulting(
      { group, resource: names.plural ?? '', storageApiVersion: `${group}/${storage.name ?? v.name}` },
      storage.schema?.openAPIV3Schema,
      schema,
    );
    if (storedAs) registrations[registrations.length - 1]!.storedAs = storedAs;
  }
  return { registrations, definitions };
}

/** Upstream's default text: `<group>/<version> <Kind> is deprecated`, plus the preferred non-deprecated version. */
function defaultDeprecationWarning(crd: CustomResourceDefinition, version: string): string {
  const kind = crd.spec.names?.kind ?? '';
  const text = `${crd.spec.group}/${version} ${kind} is deprecated`;
  const preferred = (crd.spec.versions ?? [])
    .filter((v) => v.served && !v.deprecated && v.name && compareVersionPriority(v.name, version) < 0)
    .map((v) => v.name!)
    .sort(compareVersionPriority)[0];
  return preferred ? `${text}; use ${crd.spec.group}/${preferred} ${kind}` : text;
}
