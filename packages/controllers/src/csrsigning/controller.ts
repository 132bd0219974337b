import { ApiError } from '../client/api-client.js';
import type { ControllerContext } from '../index.js';
import { WorkQueue } from '../workqueue/queue.js';
import { failedCondition, signingAction, type CertificateSigningRequest } from './reconcile.js';
import { issueCertificate, type SigningAuthority } from './x509.js';

export interface CsrSigningOptions {
  ca: SigningAuthority;
  /** --cluster-signing-duration in milliseconds. */
  maxDurationMs: number;
  now?: () => Date;
}

export const csrCollection = (apiDomain: string) => `/apis/certificates.${apiDomain}/v1/certificatesigningrequests`;

/**
 * The CSR signer (`csrsigning`): signs approved requests of the built-in signers with the
 * cluster signing CA. The status write carries the resourceVersion that was judged, so a request
 * is signed at most once even when two replicas overlap while leadership moves (the loser's
 * write is a 409 and its next look sees the certificate).
 */
export async function runCsrSigningController(ctx: ControllerContext, opts: CsrSigningOptions, signal: AbortSignal): Promise<void> {
  const path = csrCollection(ctx.apiDomain);
  const informer = ctx.informers.informerFor<CertificateSigningRequest>(path);
  const queue = new WorkQueue({ name: 'csrsigning', metrics: ctx.metrics, logger: ctx.logger });
  informer.onChange((type, csr) => {
    if (type !== 'DELETED') queue.add(csr.metadata.name!);
  });
  const now = opts.now ?? (() => new Date());
  await queue.run(async (name) => {
    const csr = informer.get('', name);
    if (!csr) return;
    const at = now();
    const decision = signingAction(csr, { apiDomain: ctx.apiDomain, maxDurationMs: opts.maxDurationMs, caNotAfter: opts.ca.notAfter, now: at });
    if (decision.action === 'skip') return;
    const status = { ...csr.status };
    if (decision.action === 'fail') {
      status.conditions = [...(status.conditions ?? []), failedCondition(decision.message, at)];
    } else {
      const pem = issueCertificate(opts.ca, decision);
      status.certificate = Buffer.from(pem).toString('base64');
    }
    try {
      await ctx.client.update(`${path}/${name}/status`, { ...csr, status });
      ctx.logger.info({ csr: name, outcome: decision.action === 'sign' ? 'issued' : 'failed' }, 'certificate signing request handled');
    } catch (err) {
      // A conflict means the request changed under us: the informer brings the new version.
      if (err instanceof ApiError && (err.code === 409 || err.code === 404)) return;
      throw err;
    }
  }, signal);
}
