import { loadWebhookCredentials } from '@cluster/apiserver';
import type { ServerOptions } from './flags.js';

/**
 * --admission-control-config-file: upstream's AdmissionConfiguration, of which the webhook plugins'
 * kubeconfigs (credentials per webhook host) are read at start; an unusable file stops the start.
 */
export function webhookCredentialsFor(opts: Pick<ServerOptions, 'admissionControlConfigFile'>): ReturnType<typeof loadWebhookCredentials> | undefined {
  return opts.admissionControlConfigFile ? loadWebhookCredentials(opts.admissionControlConfigFile) : undefined;
}
