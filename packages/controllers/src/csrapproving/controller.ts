import type { KubeObject } from '@cluster/apimachinery';
import { ApiError } from '../client/api-client.js';
import type { ControllerContext } from '../index.js';
import { csrCollection } from '../csrsigning/controller.js';
import type { CertificateSigningRequest } from '../csrsigning/reconcile.js';
import { WorkQueue } from '../workqueue/queue.js';
import { approvalCandidates, approvalReview, approvedCondition } from './reconcile.js';

/**
 * The CSR approver (`csrapproving`): approves node-agent client requests whose requester may
 * create `certificatesigningrequests/nodeclient` (joining with a bootstrap token) or
 * `.../selfnodeclient` (a node renewing its own certificate), asking the server with a
 * SubjectAccessReview as upstream does; never anything else.
 */
export async function runCsrApprovingController(ctx: ControllerContext, signal: AbortSignal, now: () => Date = () => new Date()): Promise<void> {
  const path = csrCollection(ctx.apiDomain);
  const sarPath = `/apis/authorization.${ctx.apiDomain}/v1/subjectaccessreviews`;
  const informer = ctx.informers.informerFor<CertificateSigningRequest>(path);
  const queue = new WorkQueue({ name: 'csrapproving', metrics: ctx.metrics, logger: ctx.logger });
  informer.onChange((type, csr) => {
    if (type !== 'DELETED') queue.add(csr.metadata.name!);
  });
  await queue.run(async (name) => {
    const csr = informer.get('', name);
    if (!csr) return;
    for (const candidate of approvalCandidates(csr, ctx.apiDomain)) {
      const review = (await ctx.client.create(sarPath, approvalReview(csr, ctx.apiDomain, candidate))) as KubeObject & { status?: { allowed?: boolean } };
      if (!review.status?.allowed) continue;
      const status = { ...csr.status, conditions: [...(csr.status?.conditions ?? []), approvedCondition(candidate.message, now())] };
      try {
        await ctx.client.update(`${path}/${name}/approval`, { ...csr, status });
        ctx.logger.info({ csr: name, as: candidate.subresource }, 'certificate signing request approved');
      } catch (err) {
        if (err instanceof ApiError && (err.code === 409 || err.code === 404)) return;
        throw err;
      }
      return;
    }
  }, signal);
}
