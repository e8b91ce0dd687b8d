// The indexer's writer lock: one writer per database. A second indexer waits on it as a
// hot standby; the lock is a database session's, so after the database was lost it is
// taken again before anything is written.
import { type AdvisoryLock, type Database, DatabaseError } from '../db/types.ts';
import { type createBackoff, sleep } from '../internal/backoff.ts';

export const INDEXER_LOCK = 0x696e6478; // "indx"

export interface WriterLock {
  /** Whether this indexer holds the lock (its session may since have ended: see `lost`). */
  readonly held: boolean;
  /** The session holding the lock ended (terminated, server restarted). */
  readonly lost: boolean;
  /**
   * Takes the lock, waiting as a standby while another writer holds it and waiting out an
   * unreachable database; returns once held or aborted.
   */
  take(signal: AbortSignal, backoff: ReturnType<typeof createBackoff>): Promise<void>;
  /** Lets the lock go (a lost session's lock is dropped the same way). */
  drop(): Promise<void>;
}

export function createWriterLock(
  db: Database,
  waiting: (state: 'standby' | 'database_unavailable', message?: string) => void,
): WriterLock {
  let lock: AdvisoryLock | undefined;
  return {
    get held() {
      return lock !== undefined;
    },
    get lost() {
      return lock?.lost ?? false;
    },
    async take(signal, backoff) {
      while (!lock && !signal.aborted) {
        try {
          lock = await db.advisoryLock(INDEXER_LOCK, { wait: false });
          if (!lock) {
            waiting('standby');
            lock = await db.advisoryLock(INDEXER_LOCK, { signal });
          }
        } catch (error) {
          if (!(error instanceof DatabaseError && error.unavailable)) throw error;
          waiting('database_unavailable', (error as Error).message);
          await sleep(backoff.next(), signal);
        }
      }
    },
    async drop() {
      const held = lock;
      lock = undefined;
      await held?.release().catch(() => {});
    },
  };
}
