// Runs a devnet in a child process (as a real node is a separate process) for benchmarks:
// pregenerates history, then serves it, optionally with live traffic.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface DevnetProcess {
  rpcUrl: string;
  contracts: { launchpad: string; amm: string };
  height: number;
  trades: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface DevnetProcessOptions {
  /** Trades to pregenerate before serving. */
  pregenerate?: number;
  tradesPerBlock?: number;
  /** After pregeneration: automatic blocks every blockMs with `liveRate` trades each (0 = none). */
  blockMs?: number;
  liveRate?: number;
}

const entry = fileURLToPath(new URL('./devnet-child.ts', import.meta.url));

export function startDevnetProcess(options: DevnetProcessOptions): Promise<DevnetProcess> {
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=6144', '--import', 'tsx', entry, JSON.stringify(options)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (d) => {
      buffer += d;
      const line = buffer.split('\n').find((l) => l.startsWith('ready '));
      if (!line) return;
      const info = JSON.parse(line.slice(6));
      resolve({
        ...info,
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`devnet process exited with code ${code}`)));
  });
}
