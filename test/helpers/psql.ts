// psql as an operator runs it, for comparing what the service answers with what psql prints:
// a query's rows, each value as psql prints it (null for NULL), by unit and record separators
// that no value of the tests holds.
import { execFile } from 'node:child_process';

const NULL = '\u001dNULL';

/** The rows psql prints for `sql` on the database at `url`; rejects with psql's error. */
export function psqlRows(url: string, sql: string): Promise<(string | null)[][]> {
  const args = ['-X', '-A', '-t', '-F', '\u001f', '-R', '\u001e', '-P', `null=${NULL}`, '-v', 'ON_ERROR_STOP=1'];
  return new Promise((resolve, reject) => {
    execFile(
      'psql',
      [url, ...args, '-c', sql],
      { encoding: 'utf8', maxBuffer: 1 << 28, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`psql: ${stderr || error.message}`));
        const printed = stdout.replace(/\n$/, '');
        resolve(
          printed === ''
            ? []
            : printed.split('\u001e').map((r) => r.split('\u001f').map((v) => (v === NULL ? null : v))),
        );
      },
    );
  });
}
