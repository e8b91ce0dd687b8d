// The devnet child of startDevnetProcess(): pregenerates, then serves until SIGTERM.
import { createDevnet } from '../../src/devnet/index.ts';
import type { DevnetProcessOptions } from './devnet-process.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as DevnetProcessOptions;
const devnet = await createDevnet({ port: 0, blockMs: 0, tradesPerBlock: 0 });
if (options.pregenerate)
  await devnet.pregenerate({ trades: options.pregenerate, tradesPerBlock: options.tradesPerBlock ?? 1000 });
let blocks: NodeJS.Timeout | undefined;
if (options.blockMs) {
  devnet.generator.setRate(options.liveRate ?? 0);
  blocks = setInterval(() => void devnet.produceBlock(), options.blockMs);
}
process.stdout.write(
  `ready ${JSON.stringify({ rpcUrl: devnet.rpcUrl, contracts: devnet.contracts, height: devnet.height(), trades: devnet.ledger.trades.length })}\n`,
);
process.on('SIGTERM', async () => {
  clearInterval(blocks);
  await devnet.close();
  process.exit(0);
});
