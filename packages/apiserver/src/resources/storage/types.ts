import type { KubeObject, LabelSelectorObject } from '@cluster/apimachinery';

export interface TopologySelectorTerm {
  matchLabelExpressions?: Array<{ key?: string; values?: string[] }>;
}

export interface StorageClass extends KubeObject {
  provisioner?: string;
  parameters?: Record<string, string>;
  reclaimPolicy?: string;
  mountOptions?: string[];
  allowVolumeExpansion?: boolean;
  volumeBindingMode?: string;
  allowedTopologies?: TopologySelectorTerm[];
}

export interface CSIDriver extends KubeObject {
  spec?: {
    attachRequired?: boolean;
    podInfoOnMount?: boolean;
    volumeLifecycleModes?: string[];
    storageCapacity?: boolean;
    fsGroupPolicy?: string;
    tokenRequests?: Array<{ audience?: string; expirationSeconds?: number }>;
    requiresRepublish?: boolean;
    [field: string]: unknown;
  };
}

export interface CSINode extends KubeObject {
  spec?: { drivers?: Array<{ name?: string; nodeID?: string; topologyKeys?: string[]; allocatable?: { count?: number } }> };
}

export interface VolumeError {
  time?: string;
  message?: string;
}

export interface VolumeAttachment extends KubeObject {
  spec?: {
    attacher?: string;
    source?: { persistentVolumeName?: string; inlineVolumeSpec?: Record<string, unknown> };
    nodeName?: string;
  };
  status?: { attached?: boolean; attachmentMetadata?: Record<string, string>; attachError?: VolumeError; detachError?: VolumeError };
}

export interface CSIStorageCapacity extends KubeObject {
  nodeTopology?: LabelSelectorObject;
  storageClassName?: string;
  capacity?: string;
  maximumVolumeSize?: string;
}

/** Annotations marking the class claims without one get (the beta name is still honoured). */
export const DEFAULT_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

/** Upstream's IsDefaultAnnotation. */
export function isDefaultStorageClass(sc: KubeObject): boolean {
  return DEFAULT_CLASS_ANNOTATIONS.some((a) => sc.metadata.annotations?.[a] === 'true');
}
