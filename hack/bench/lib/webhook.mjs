// BENCH_WEBHOOK=1: one matching no-op validating webhook for every ConfigMap write, to measure
// what calling a webhook adds to the create path (hack/bench/README.md). Off by default: the
// budgets are for a replica without webhooks.
import { startWebhookServer } from './processes.mjs';

const NAME = 'bench-noop';

/** Starts the webhook process, registers it, and waits until the replica calls it. */
export async function setUpNoopWebhook({ admin, replica, log }) {
  const hook = await startWebhookServer({ certFile: replica.certFile, keyFile: replica.keyFile });
  await admin.json('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
    metadata: { name: NAME },
    webhooks: [
      {
        name: `${NAME}.bench.local`,
        clientConfig: { url: `https://127.0.0.1:${hook.port}/validate`, caBundle: Buffer.from(replica.ca).toString('base64') },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
      },
    ],
  });
  // In force once a dry-run create shows up in the replica's webhook metrics.
  const probe = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench-webhook-probe' } };
  for (let i = 0; i < 100; i++) {
    await admin.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', JSON.stringify(probe));
    const metrics = (await admin.request('GET', '/metrics')).body.toString('utf8');
    if (metrics.includes(`name="${NAME}.bench.local"`)) {
      log(`no-op webhook on 127.0.0.1:${hook.port} (pid ${hook.pid}) is called for every ConfigMap write`);
      return hook;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the no-op webhook was not called within 10 s');
}
