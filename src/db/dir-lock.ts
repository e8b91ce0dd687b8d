// An embedded database directory may be opened by one process at a time: two
// processes writing the same files would corrupt them. A lock file holds the owner's pid.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { DatabaseError } from './types.ts';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the directory's lock or throws naming the process that holds it; returns the release function. */
export function acquireDirLock(dir: string): () => void {
  const file = path.join(dir, 'embedded.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseError(
          `DATA_DIR ${dir} is in use by process ${owner}. Stop that process, or set DATA_DIR to another directory (or DATABASE_URL to a TimescaleDB server, which many processes can share).`,
          { code: 'DATA_DIR_LOCKED' },
        );
      }
      // The owner is gone (crash or kill -9): the lock is stale.
      rmSync(file, { force: true });
    }
  }
  throw new DatabaseError(`Could not lock DATA_DIR ${dir}`, { code: 'DATA_DIR_LOCKED' });
}
