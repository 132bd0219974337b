import type { OpenApiSchema } from './patch-meta.js';

/** A hand-written slice of the built-in OpenAPI v2 definitions, for the patch tests. */
export const testDefinitions: Record<string, OpenApiSchema> = {
  ObjectMeta: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
      ownerReferences: {
        type: 'array',
        items: { $ref: '#/definitions/OwnerReference' },
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
    },
  },
  OwnerReference: {
    type: 'object',
    properties: { uid: { type: 'string' }, name: { type: 'string' }, controller: { type: 'boolean' } },
  },
  Pod: {
    type: 'object',
    properties: { metadata: { $ref: '#/definitions/ObjectMeta' }, spec: { $ref: '#/definitions/PodSpec' } },
  },
  PodSpec: {
    type: 'object',
    properties: {
      containers: {
        type: 'array',
        items: { $ref: '#/definitions/Container' },
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge',
      },
      volumes: {
        type: 'array',
        items: { $ref: '#/definitions/Volume' },
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge,retainKeys',
      },
      tolerations: { type: 'array', items: { $ref: '#/definitions/Toleration' } },
      nodeSelector: { type: 'object', additionalProperties: { type: 'string' } },
      strategy: { $ref: '#/definitions/DeploymentStrategy', 'x-kubernetes-patch-strategy': 'retainKeys' },
      // Not in the real PodSpec: fields that exercise error paths.
      matrix: { type: 'array', items: { type: 'array', items: { type: 'integer' } }, 'x-kubernetes-patch-strategy': 'merge' },
      keyless: { type: 'array', items: { $ref: '#/definitions/Toleration' }, 'x-kubernetes-patch-strategy': 'merge' },
      replaced: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-patch-strategy': 'replace' },
      odd: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge,replace' },
    },
  },
  Container: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      image: { type: 'string' },
      args: { type: 'array', items: { type: 'string' } },
      env: {
        type: 'array',
        items: { $ref: '#/definitions/EnvVar' },
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge',
      },
    },
  },
  EnvVar: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } },
  Volume: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      emptyDir: { type: 'object', properties: { medium: { type: 'string' } } },
      hostPath: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
  Toleration: { type: 'object', properties: { key: { type: 'string' }, effect: { type: 'string' } } },
  DeploymentStrategy: {
    type: 'object',
    properties: {
      type: { type: 'string' },
      rollingUpdate: { type: 'object', properties: { maxSurge: { type: 'integer' } } },
    },
  },
  // Mirrors upstream's MergeItem test type (strategicpatch/patch_test.go).
  MergeItem: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      value: { type: 'string' },
      other: { type: 'string' },
      mergingList: {
        type: 'array',
        items: { $ref: '#/definitions/MergeItem' },
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      },
      nonMergingList: { type: 'array', items: { $ref: '#/definitions/MergeItem' } },
      mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
      nonMergingIntList: { type: 'array', items: { type: 'integer' } },
      simpleMap: { type: 'object', additionalProperties: { type: 'string' } },
      retainKeysMap: { $ref: '#/definitions/RetainKeysMergeItem', 'x-kubernetes-patch-strategy': 'retainKeys' },
      retainKeysMergingList: {
        type: 'array',
        items: { $ref: '#/definitions/MergeItem' },
        'x-kubernetes-patch-strategy': 'merge,retainKeys',
        'x-kubernetes-patch-merge-key': 'name',
      },
    },
  },
  RetainKeysMergeItem: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      value: { type: 'string' },
      other: { type: 'string' },
      simpleMap: { type: 'object', additionalProperties: { type: 'string' } },
      mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
    },
  },
};
