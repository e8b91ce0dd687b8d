// Orderly shutdown: components register a close function; the first SIGINT/SIGTERM
// runs them in reverse order of registration, a second signal exits at once.
import type { Logger } from './logger.ts';

export interface Shutdown {
  /** Registers a close step; steps run last-registered first. */
  add(name: string, close: () => Promise<void> | void): void;
  /** Runs every close step once; later calls return the same promise. */
  run(reason: string): Promise<void>;
  readonly isShuttingDown: boolean;
  readonly signal: AbortSignal;
}

export function createShutdown(logger: Logger, timeoutMs = 15_000): Shutdown {
  const steps: { name: string; close: () => Promise<void> | void }[] = [];
  const controller = new AbortController();
  let running: Promise<void> | undefined;

  const run = (reason: string): Promise<void> => {
    if (running) return running;
    controller.abort();
    logger.info({ reason }, 'Began shutting down');
    running = (async () => {
      const timer = setTimeout(() => {
        logger.error({ timeout_ms: timeoutMs }, 'Shutdown timed out; exiting');
        process.exit(1);
      }, timeoutMs);
      timer.unref();
      for (const step of steps.reverse()) {
        try {
          await step.close();
        } catch (error) {
          logger.error({ err: error, step: step.name }, 'Close step failed');
        }
      }
      clearTimeout(timer);
      logger.info('Stopped');
    })();
    return running;
  };

  return {
    add: (name, close) => void steps.push({ name, close }),
    run,
    get isShuttingDown() {
      return running !== undefined;
    },
    signal: controller.signal,
  };
}

/** Wires SIGINT/SIGTERM to the shutdown; a second signal forces exit. */
export function handleSignals(shutdown: Shutdown): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (shutdown.isShuttingDown) process.exit(130);
    void shutdown.run(signal).then(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
