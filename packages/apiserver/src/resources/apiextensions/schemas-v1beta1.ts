import {
  booleanProp,
  integerProp,
  listSchema,
  objectSchema,
  objectTypeMeta,
  refArrayProp,
  refProp,
  stringArrayProp,
  stringProp,
  type GvkMarker,
} from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';
import { APIEXTENSIONS_V1 } from './schemas.js';

export const APIEXTENSIONS_V1BETA1 = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1';
const d = (name: string) => `${APIEXTENSIONS_V1BETA1}.${name}`;
/** Parts whose shape v1beta1 shares with v1 (schemas, names, subresources, status). */
const v1 = (name: string) => `${APIEXTENSIONS_V1}.${name}`;

/**
 * OpenAPI definitions of apiextensions/v1beta1 CustomResourceDefinition (served again through
 * --runtime-config): v1's kind with v1beta1's spec, whose top-level `version`, `validation`,
 * `subresources` and `additionalPrinterColumns` (with `JSONPath`) stand for every version's, and
 * whose conversion names the webhook settings `webhookClientConfig` and `conversionReviewVersions`.
 */
export function apiextensionsV1beta1Definitions(apiDomain: string): Definitions {
  const gvk = (kind: string): GvkMarker => ({ group: `apiextensions.${apiDomain}`, version: 'v1beta1', kind });
  const columns = (description: string) => refArrayProp(description, d('CustomResourceColumnDefinition'), { 'x-kubernetes-list-type': 'atomic' });
  return {
    [d('CustomResourceDefinition')]: objectSchema(
      'Describes a custom resource type the server serves under its own group, versions and names (deprecated: use apiextensions/v1).',
      {
        ...objectTypeMeta(),
        spec: refProp(d('CustomResourceDefinitionSpec'), 'The resource type being defined.'),
        status: refProp(v1('CustomResourceDefinitionStatus'), 'What the server has accepted and established.'),
      },
      { gvk: [gvk('CustomResourceDefinition')], required: ['spec'] },
    ),
    [d('CustomResourceDefinitionList')]: listSchema(d('CustomResourceDefinition'), gvk('CustomResourceDefinitionList'), 'The CustomResourceDefinitions.'),
    [d('CustomResourceDefinitionSpec')]: objectSchema(
      'The group, names, scope and versions of a custom resource type.',
      {
        group: stringProp('API group of the resources, a domain such as stable.example.com.'),
        version: stringProp('Deprecated: the first entry of versions; a single served storage version when versions is empty.'),
        names: refProp(v1('CustomResourceDefinitionNames'), 'Names the resources are served under.'),
        scope: stringProp('Cluster or Namespaced (the default).'),
        validation: refProp(v1('CustomResourceValidation'), 'Schema of every version; excludes per-version schemas.'),
        subresources: refProp(v1('CustomResourceSubresources'), 'Subresources of every version; excludes per-version ones.'),
        versions: refArrayProp('Versions served; exactly one is the storage version.', d('CustomResourceDefinitionVersion'), {
          'x-kubernetes-list-type': 'atomic',
        }),
        additionalPrinterColumns: columns('Extra Table columns of every version; excludes per-version ones.'),
        conversion: refProp(d('CustomResourceConversion'), 'How objects are converted between versions.'),
        preserveUnknownFields: booleanProp('Defaults to true, which this server refuses: set false and use x-kubernetes-preserve-unknown-fields in schemas.'),
      },
      { required: ['group', 'names'] },
    ),
    [d('CustomResourceDefinitionVersion')]: objectSchema(
      'One version of a custom resource type.',
      {
        name: stringProp('Version name, served at /apis/<group>/<version>.'),
        served: booleanProp('Whether this version is served.'),
        storage: booleanProp('Whether objects are stored in this version; exactly one version is.'),
        deprecated: booleanProp('Whether requests to this version get a deprecation warning.'),
        deprecationWarning: stringProp('The warning sent instead of the default one.'),
        schema: refProp(v1('CustomResourceValidation'), 'Schema of objects of this version.'),
        subresources: refProp(v1('CustomResourceSubresources'), 'Subresources served for this version.'),
        additionalPrinterColumns: columns('Extra Table columns of this version.'),
      },
      { required: ['name', 'served', 'storage'] },
    ),
    [d('CustomResourceColumnDefinition')]: objectSchema(
      'A Table column of a custom resource.',
      {
        name: stringProp('Column header.'),
        type: stringProp('integer, number, string, boolean or date.'),
        format: stringProp('Optional format hint of the column.'),
        description: stringProp('What the column shows.'),
        priority: integerProp('0 shows the column by default; higher only in wide output.', 'int32'),
        JSONPath: stringProp('Simple JSON path evaluated against each object.'),
      },
      { required: ['name', 'type', 'JSONPath'] },
    ),
    [d('CustomResourceConversion')]: objectSchema('Conversion between versions.', {
      strategy: stringProp('None: only apiVersion is rewritten.'),
      webhookClientConfig: { type: 'object', description: 'Webhook conversion client settings (not supported by this server).' },
      conversionReviewVersions: stringArrayProp('ConversionReview versions the webhook understands.', { 'x-kubernetes-list-type': 'atomic' }),
    }),
  };
}
