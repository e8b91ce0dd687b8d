// The devnet of `npm run bench:chain` in a child process (as a node is its own process),
// its chain kept in `dataDir` so a second run reuses it: the child reads the block log
// back, pregenerates only what is missing (`tradesPerBlock` trades per block, each trade
// one tx), then serves the chain's RPC without making blocks.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface ChainBenchDevnet {
  rpcUrl: string;
  contracts: { launchpad: string; amm: string };
  height: number;
  trades: number;
  /** What the data directory held when the child started. */
  restored: { height: number; trades: number };
  restoreSeconds: number;
  /** 0 when nothing had to be generated. */
  generateSeconds: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

const entry = fileURLToPath(new URL('./chain-bench-devnet-child.ts', import.meta.url));

export function startChainBenchDevnet(
  options: { dataDir: string; trades: number; tradesPerBlock: number },
  onProgress?: (p: { trades: number; height: number; seconds: number }) => void,
): Promise<ChainBenchDevnet> {
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=6144', '--import', 'tsx', entry, JSON.stringify(options)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the devnet process exited with code ${code}`));
    child.once('exit', onExit);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('progress ')) onProgress?.(JSON.parse(line.slice(9)));
      if (!line.startsWith('ready ')) return;
      child.off('exit', onExit);
      resolve({
        ...JSON.parse(line.slice(6)),
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
