// GET /cosmos/base/tendermint/v1beta1/blocks/latest and /blocks/{height} (docs/chain-api.md,
// "Blocks"): from the index, read through from the node for a height it does not hold;
// `latest` is the node's tip.
import type { ServerResponse } from 'node:http';
import type { Polka } from 'polka';
import { sendJson } from '../../http/respond.ts';
import { blockJson } from '../block-json.ts';
import type { ChainApiContext } from '../context.ts';
import { GatewayError, GRPC } from '../gateway.ts';
import { int64Param } from '../params.ts';
import { indexTip, latestHeight, loadBlock } from '../read-through.ts';

const BASE = '/cosmos/base/tendermint/v1beta1/blocks';

export function registerBlocks(app: Polka, ctx: ChainApiContext): void {
  const answer = async (res: ServerResponse, height: bigint) => {
    const block = await loadBlock(ctx, height);
    sendJson(res, 200, blockJson(block.parts, block.txs, ctx.prefixes.consensus));
  };
  // `latest` first: the router would also match it as a height
  app.get(`${BASE}/latest`, async (_req, res) => {
    const height = await latestHeight(ctx);
    try {
      await answer(res, BigInt(height));
    } catch (error) {
      // the node went away since its tip was read: the newest block the index holds
      const indexed = error instanceof GatewayError && error.code === GRPC.UNAVAILABLE && (await indexTip(ctx));
      if (!indexed || indexed >= height) throw error;
      await answer(res, BigInt(indexed));
    }
  });
  app.get(`${BASE}/:height`, async (req, res) => answer(res, int64Param('height', req.params.height)!));
}
