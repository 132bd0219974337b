/** The parts of a PersistentVolume and a VolumeAttachment the Node authorizer reads (loosely typed). */
export interface PersistentVolumeShape {
  metadata?: { name?: string } | null;
  spec?: (Record<string, unknown> & { claimRef?: { namespace?: string | null; name?: string | null } | null }) | null;
}

export interface VolumeAttachmentShape {
  metadata?: { name?: string } | null;
  spec?: { nodeName?: string | null } | null;
}

type SecretRef = { name?: string | null; namespace?: string | null } | null | undefined;
type Source = Record<string, unknown> | null | undefined;

/** A Secret a node may read because of a volume: its namespace and name. */
export interface SecretKey {
  namespace: string;
  name: string;
}

/**
 * The Secrets of a PersistentVolume that the node agent itself uses to mount it (upstream
 * pvutil.VisitPVSecretNames, its `kubeletVisible` ones only): the first volume source set decides,
 * as upstream's switch does. A reference without a namespace falls back to the claim's namespace
 * where upstream does so (azureFile, cephfs, flexVolume, rbd, scaleIO, iscsi); cinder, storageos
 * and csi references keep theirs. The CSI controller secrets are never the node's. Empty names are
 * skipped. Pure.
 */
export function pvKubeletSecrets(pv: PersistentVolumeShape): SecretKey[] {
  const spec = pv.spec ?? {};
  const claimNs = spec.claimRef?.namespace ?? '';
  const out: SecretKey[] = [];
  const add = (namespace: string | null | undefined, name: string | null | undefined) => {
    if (name) out.push({ namespace: namespace ?? '', name });
  };
  const src = (key: string): Source => spec[key] as Source;
  const ref = (s: Source, key = 'secretRef'): SecretRef => s?.[key] as SecretRef;
  const withClaimNs = (r: SecretRef) => add(r?.namespace || claimNs, r?.name);

  const azureFile = src('azureFile');
  if (azureFile) {
    const ns = azureFile.secretNamespace as string | null | undefined;
    add(ns || claimNs, azureFile.secretName as string | undefined);
    return out;
  }
  for (const key of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos']) {
    const s = src(key);
    if (!s) continue;
    const r = ref(s);
    if (r) {
      if (key === 'cinder' || key === 'storageos') add(r.namespace, r.name);
      else withClaimNs(r);
    }
    return out;
  }
  const csi = src('csi');
  if (csi) {
    for (const k of ['nodePublishSecretRef', 'nodeStageSecretRef']) {
      const r = ref(csi, k);
      if (r) add(r.namespace, r.name);
    }
  }
  return out;
}
