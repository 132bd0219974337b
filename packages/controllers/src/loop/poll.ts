import type { Logger } from 'pino';

/**
 * Runs `pass` now and then `resyncMs` after each pass ends, until `signal` aborts; resolves then.
 * A pass that throws is logged and retried at the next tick. Passes never overlap.
 */
export function runPeriodically(name: string, pass: () => Promise<void>, resyncMs: number, logger: Logger, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const tick = async () => {
      try {
        await pass();
      } catch (err) {
        logger.warn({ err, controller: name }, 'controller pass failed');
      }
      if (!signal.aborted) timer = setTimeout(() => void tick(), resyncMs);
    };
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
    void tick();
  });
}
