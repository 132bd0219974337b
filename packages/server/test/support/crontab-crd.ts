/** A CronTab CRD (two versions, list-type markers, status subresource, printer columns) for tests. */
export function cronTabCrd(group = 'stable.example.com', scope: 'Namespaced' | 'Cluster' = 'Namespaced') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      scope,
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
                    image: { type: 'string' },
                    replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
                    ports: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
                    },
                  },
                },
                status: { type: 'object', properties: { phase: { type: 'string' }, replicas: { type: 'integer' }, selector: { type: 'string' } } },
              },
            },
          },
        },
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      ],
    },
  };
}
