// A real PostgreSQL server for the server adapter's tests: TEST_DATABASE_URL when set,
// a testcontainers TimescaleDB when a Docker engine answers, otherwise a throwaway
// cluster made with this machine's PostgreSQL binaries, with TimescaleDB loaded when its
// extension is installed there. Says why when none is possible.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sleep } from './wait.ts';

export interface PostgresServer {
  url: string;
  /** true when the server has the TimescaleDB extension (the full schema can run on it). */
  timescale: boolean;
  description: string;
  /** The cluster's data directory, when this process started it (for restart tests). */
  dataDir?: string;
  /**
   * What the server logged of its processes that crashed (a backend or worker killed by a
   * signal, with the statement it was running): a failure of every test on the server at
   * once, said where it came from. Empty for a server this process did not start.
   */
  crashes?(): string[];
  stop(): Promise<void>;
}

/** The postmaster's lines about a process that crashed, and the ones it follows them with. */
const CRASH_LINE =
  /terminated by signal|Failed process was running|terminating any other active server processes|all server processes terminated/u;
/** How much of a throwaway server's log is kept for crashes (its newest lines). */
const KEPT_LOG_BYTES = 1024 * 1024;

export type ServerOrReason = PostgresServer | { skip: string };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export function findPostgresBin(): string | undefined {
  const fromEnv = process.env.PG_BINDIR;
  if (fromEnv && existsSync(path.join(fromEnv, 'initdb'))) return fromEnv;
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(path.join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(base, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  return which.status === 0 ? path.dirname(which.stdout.trim()) : undefined;
}

/** initdb refuses to run as root: run the server binaries as the postgres user then. */
export function asServerUser(cmd: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [cmd, args];
  return ['runuser', ['-u', 'postgres', '--', cmd, ...args]];
}

/** True when this PostgreSQL installation has the TimescaleDB server extension. */
function hasTimescale(bin: string): boolean {
  const pkglibdir = spawnSync(path.join(bin, 'pg_config'), ['--pkglibdir'], { encoding: 'utf8' });
  const libdir = pkglibdir.status === 0 ? pkglibdir.stdout.trim() : path.join(bin, '..', 'lib');
  return existsSync(path.join(libdir, 'timescaledb.so'));
}

export async function startThrowawayCluster(): Promise<ServerOrReason> {
  const bin = findPostgresBin();
  if (!bin)
    return {
      skip: 'no PostgreSQL server binaries (initdb) on this machine; install postgresql or set TEST_DATABASE_URL',
    };
  if (process.getuid?.() === 0 && spawnSync('id', ['postgres']).status !== 0)
    return { skip: 'running as root and there is no postgres user to run initdb as' };
  const dir = mkdtempSync(path.join(tmpdir(), 'pgtest-'));
  chmodSync(dir, 0o777);
  const dataDir = path.join(dir, 'data');
  const [initCmd, initArgs] = asServerUser(path.join(bin, 'initdb'), [
    '-D',
    dataDir,
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `initdb failed: ${init.stderr || init.stdout}` };
  }
  const port = await freePort();
  const timescale = hasTimescale(bin);
  const settings = [
    'listen_addresses=127.0.0.1',
    'fsync=off',
    'synchronous_commit=off',
    'full_page_writes=off',
    'max_connections=300',
  ];
  if (timescale) settings.push('shared_preload_libraries=timescaledb', 'timescaledb.telemetry_level=off');
  const [cmd, args] = asServerUser(path.join(bin, 'postgres'), [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-k',
    dir,
    ...settings.flatMap((s) => ['-c', s]),
  ]);
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d) => {
    log += d;
    if (log.length > 2 * KEPT_LOG_BYTES) log = log.slice(-KEPT_LOG_BYTES);
  });
  const ready = await new Promise<boolean>((resolve) => {
    const deadline = Date.now() + 20_000;
    const poll = () => {
      const ok = spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]).status === 0;
      if (ok) return resolve(true);
      if (Date.now() > deadline || child.exitCode !== null) return resolve(false);
      setTimeout(poll, 100);
    };
    poll();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    // runuser does not forward signals to the server: ask pg_ctl for a fast shutdown, then,
    // if the server is still there (a fast shutdown right after a crash's reset has been seen
    // to wait forever), an immediate one, then kill it
    for (const mode of ['fast', 'immediate']) {
      if (child.exitCode !== null) break;
      const [stopCmd, stopArgs] = asServerUser(path.join(bin, 'pg_ctl'), [
        'stop',
        '-D',
        dataDir,
        '-m',
        mode,
        '-w',
        '-t',
        '20',
      ]);
      spawnSync(stopCmd, stopArgs, { stdio: 'ignore' });
      await Promise.race([exited, sleep(1000)]);
    }
    if (child.exitCode === null) {
      const pid = existsSync(path.join(dataDir, 'postmaster.pid'))
        ? Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
        : 0;
      if (pid > 0) process.kill(pid, 'SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  if (!ready) {
    await stop();
    return { skip: `PostgreSQL did not start: ${log.slice(-500)}` };
  }
  const version = path.basename(path.dirname(bin));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    timescale,
    description: `throwaway PostgreSQL ${version} cluster${timescale ? ' with TimescaleDB' : ''}`,
    dataDir,
    crashes: () => log.split('\n').filter((line) => CRASH_LINE.test(line)),
    stop,
  };
}

async function startContainer(): Promise<ServerOrReason | undefined> {
  try {
    const { getContainerRuntimeClient, GenericContainer, Wait } = await import('testcontainers');
    await getContainerRuntimeClient();
    const container = await new GenericContainer('timescale/timescaledb:latest-pg17')
      .withEnvironment({ POSTGRES_PASSWORD: 'postgres' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    return {
      url: `postgres://postgres:postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`,
      timescale: true,
      description: 'testcontainers TimescaleDB',
      stop: async () => void (await container.stop()),
    };
  } catch {
    return undefined; // no Docker engine: fall back to the machine's binaries
  }
}

export async function startPostgresServer(): Promise<ServerOrReason> {
  if (process.env.TEST_DATABASE_URL) {
    return {
      url: process.env.TEST_DATABASE_URL,
      timescale: true,
      description: 'TEST_DATABASE_URL',
      stop: async () => {},
    };
  }
  return (await startContainer()) ?? startThrowawayCluster();
}
