// `npm run db:shell`: the embedded database (DATA_DIR) on a loopback port for psql, while the
// service is stopped (docs/sql.md "psql on the embedded database"). Ctrl-C closes it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config.ts';
import { startEmbeddedShell } from '../src/db/embedded-shell.ts';
import { DatabaseError } from '../src/db/types.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '54320' } } });
const port = Number(values.port);

try {
  const config = loadConfig();
  if (config.DATABASE_URL) {
    console.error(
      'DATABASE_URL is set: the data is on a TimescaleDB server, which psql reaches directly (psql "$DATABASE_URL"). db:shell opens the embedded database in DATA_DIR.',
    );
    process.exit(1);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(['--port must be a port number from 0 to 65535']);
  if (!existsSync(path.join(config.DATA_DIR, 'pgdata'))) {
    console.error(`There is no embedded database in DATA_DIR ${path.resolve(config.DATA_DIR)} (npm start creates it).`);
    process.exit(1);
  }
  const shell = await startEmbeddedShell({ dataDir: config.DATA_DIR, port });
  console.log(`The embedded database in ${path.resolve(config.DATA_DIR)} is open for psql (one session at a time):

  psql '${shell.url}'

The service cannot start on this DATA_DIR until this closes. Ctrl-C closes it.`);
  const stop = async () => {
    await shell.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  if (error instanceof DatabaseError && error.code === 'DATA_DIR_LOCKED')
    console.error(`${error.message}\ndb:shell opens DATA_DIR only while the service is stopped.`);
  else console.error(error instanceof ConfigError ? error.message : `db:shell failed: ${(error as Error).message}`);
  process.exit(1);
}
