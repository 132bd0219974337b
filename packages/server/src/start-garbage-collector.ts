import type { Logger } from 'pino';
import { controllerEnabled } from '@cluster/controllers';
import type { ServerOptions } from './flag-definitions.js';

const GC = 'garbagecollector';

/**
 * The garbage-collection stage: decides whether this replica's built-in `garbagecollector`
 * controller runs and returns the --controllers list the controller manager gets.
 * - `--enable-garbage-collector` (default true) means what it means to upstream's API server and
 *   controller manager together: Orphan and Foreground deletes add their finalizers and a garbage
 *   collector runs. Set to false, deletes add no finalizer and our collector does not run either.
 * - `--controllers=*,-garbagecollector` turns only our collector off, for upstream's
 *   kube-controller-manager to collect instead (hack/conformance/run-fresh.sh --with-kcm).
 */
export function garbageCollectorControllers(opts: Pick<ServerOptions, 'controllers' | 'enableGarbageCollector'>, logger: Logger): string[] {
  const ours = controllerEnabled(GC, opts.controllers);
  if (!opts.enableGarbageCollector) {
    if (ours && opts.controllers.includes(GC)) logger.warn('--enable-garbage-collector=false: the garbagecollector controller does not run');
    return [...opts.controllers.filter((c) => c !== GC), `-${GC}`];
  }
  if (!ours) logger.info('the built-in garbagecollector controller is off: Orphan and Foreground deletes wait for an external garbage collector');
  return [...opts.controllers];
}
