import { ApiError } from '../client/api-client.js';
import { untilSynced } from '../client/informer.js';
import type { ControllerContext } from '../index.js';
import type { Namespace } from '../namespace/reconcile.js';
import { WorkQueue } from '../workqueue/queue.js';
import { planRootCaConfigMap, ROOT_CA_CONFIGMAP, type ConfigMap } from './reconcile.js';

/**
 * The root CA publisher (upstream `root-ca-cert-publisher`): every namespace that is not being
 * deleted holds ConfigMap `kube-root-ca.crt` with the cluster CA, so pods can trust the API
 * server. It is re-created when deleted and restored when its data is changed. Keys are
 * namespace names; a write that meets a conflict is planned again from the informer's newer copy.
 */
export async function runRootCaCertPublisher(ctx: ControllerContext, caPem: string, signal: AbortSignal): Promise<void> {
  const namespaces = ctx.informers.informerFor<Namespace>('/api/v1/namespaces');
  // Only the one name matters: a field selector keeps every other ConfigMap out of memory.
  const configMaps = ctx.informers.informerFor<ConfigMap>(`/api/v1/configmaps?fieldSelector=${encodeURIComponent(`metadata.name=${ROOT_CA_CONFIGMAP}`)}`);
  const queue = new WorkQueue({ name: 'root-ca-cert-publisher', metrics: ctx.metrics, logger: ctx.logger });
  namespaces.onChange((type, ns) => {
    if (type !== 'DELETED') queue.add(ns.metadata.name ?? '');
  });
  configMaps.onChange((_type, cm) => queue.add(cm.metadata.namespace ?? ''));
  if (!(await untilSynced([namespaces.synced, configMaps.synced], signal))) return;
  await queue.run(async (name) => {
    const plan = planRootCaConfigMap({ ns: namespaces.get('', name), current: configMaps.get(name, ROOT_CA_CONFIGMAP), caPem, apiDomain: ctx.apiDomain });
    if (plan.op === 'none' || signal.aborted) return;
    const path = `/api/v1/namespaces/${encodeURIComponent(name)}/configmaps`;
    try {
      if (plan.op === 'create') await ctx.client.create(path, plan.object);
      else await ctx.client.update(`${path}/${ROOT_CA_CONFIGMAP}`, plan.object);
      ctx.logger.info({ namespace: name, op: plan.op }, 'kube-root-ca.crt written');
    } catch (e) {
      // Written or changed meanwhile (409), or the namespace began terminating or went away
      // (403, 404): the informers bring whatever follows.
      if (!(e instanceof ApiError && (e.code === 409 || e.code === 403 || e.code === 404))) throw e;
    }
  }, signal);
}
