// The devnet child of startDevnetProcess(): a devnet (in `dataDir` when given: its block log
// is read back on start, so a prepared chain is reused), extended until it holds the trades
// asked for, then serving its RPC (automatic blocks only with `blockMs`) until `quit`.
// Prints `progress {json}` while it pregenerates and `ready {json}` when it serves.
import { createDevnet } from '../../src/devnet/index.ts';
import { childConfig, serveCommands, tell } from './bench-child-bootstrap.ts';
import type { DevnetProcessOptions } from './devnet-process.ts';

const options = childConfig<DevnetProcessOptions>();
const trades = options.pregenerate ?? 0;
const restoreStarted = performance.now();
const devnet = await createDevnet({
  port: 0,
  blockMs: 0,
  tradesPerBlock: 0,
  dataDir: options.dataDir,
  cometVersion: options.cometVersion,
});
const restored = { height: devnet.height(), trades: devnet.ledger.trades.length };
const restoreSeconds = (performance.now() - restoreStarted) / 1000;
const generateStarted = performance.now();
// in chunks, a progress line after each: the same blocks as one call (a chunk ends only
// where the trades asked for are not reached yet)
const CHUNK = 50_000;
while (devnet.ledger.trades.length < trades) {
  await devnet.pregenerate({
    trades: Math.min(CHUNK, trades - devnet.ledger.trades.length),
    tradesPerBlock: options.tradesPerBlock ?? 1000,
  });
  tell(
    `progress ${JSON.stringify({ trades: devnet.ledger.trades.length, height: devnet.height(), seconds: (performance.now() - generateStarted) / 1000 })}`,
  );
}
const generateSeconds = restored.trades >= trades ? 0 : (performance.now() - generateStarted) / 1000;
let blocks: NodeJS.Timeout | undefined;
if (options.blockMs) {
  devnet.generator.setRate(options.liveRate ?? 0);
  blocks = setInterval(() => void devnet.produceBlock(), options.blockMs);
}
serveCommands(
  {
    rpcUrl: devnet.rpcUrl,
    contracts: devnet.contracts,
    height: devnet.height(),
    trades: devnet.ledger.trades.length,
    restored,
    restoreSeconds,
    generateSeconds,
  },
  {},
  async () => {
    clearInterval(blocks);
    await devnet.close();
  },
);
