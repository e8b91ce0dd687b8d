// GET /cosmos/base/tendermint/v1beta1/blocks/latest and /blocks/{height} (docs/chain-api.md,
// "Blocks"): from the index, read through from the node for a height it does not hold;
// `latest` is the node's tip. The routes are data (src/api/http/routes.ts), each described
// beside its handler; the Chain API's route table (src/api/chain/route-table.ts) joins them
// for the server, which mounts it, and for the OpenAPI document, which describes it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { type Lifetime, render, sendNotModified, sendRendered } from '../../http/http-cache.ts';
import type { Route } from '../../http/routes.ts';
import { blockJsonBytes } from '../block-json.ts';
import type { ChainApiContext } from '../context.ts';
import { GatewayError, GRPC } from '../gateway.ts';
import { int64Param } from '../params.ts';
import { indexTip, latestHeight, loadBlock } from '../read-through.ts';
import { answer, heightSchema, TAGS } from '../route-docs.ts';

const BASE = '/cosmos/base/tendermint/v1beta1/blocks';

/** How long an HTTP cache may keep a block while the chain's consensus prefix is not read yet. */
const PREFIXES_UNKNOWN_MAX_AGE_SECONDS = 60;

/** How long an HTTP cache may keep `blocks/latest` (a new block comes every second or few). */
const LATEST_MAX_AGE_SECONDS = 1;

/**
 * The block at `height`, rendered once: a block that exists is final (CometBFT), so its
 * answer never changes and is kept (src/api/http/http-cache.ts).
 */
async function sendBlock(
  ctx: ChainApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  height: bigint,
  lifetime: Lifetime,
): Promise<void> {
  const key = `block:${height}`;
  // its proposer is printed with the chain's consensus prefix: final once that is the node's
  const final = ctx.prefixesRead();
  if (lifetime === 'immutable' && final && sendNotModified(req, res, ctx.answers, key)) return;
  const rendered = await ctx.answers.remember(key, async () => {
    const block = await loadBlock(ctx, height);
    return {
      rendered: render(200, blockJsonBytes(block.parts, block.txs, ctx.prefixes.consensus)),
      immutable: final,
    };
  });
  const life = lifetime === 'immutable' && !final ? { maxAgeSeconds: PREFIXES_UNKNOWN_MAX_AGE_SECONDS } : lifetime;
  await sendRendered(req, res, rendered, life, { cache: ctx.answers, key });
}

export const blocksRoutes: Route<ChainApiContext>[] = [
  // `latest` first: the router would also match it as a height
  {
    method: 'get',
    path: `${BASE}/latest`,
    tag: TAGS.blocks,
    summary: "The node's newest block (from the index)",
    responses: { 200: answer('block_id, block, sdk_block') },
    handler: (ctx) => async (req, res) => {
      const latest = { maxAgeSeconds: LATEST_MAX_AGE_SECONDS };
      const height = await latestHeight(ctx);
      try {
        await sendBlock(ctx, req, res, BigInt(height), latest);
      } catch (error) {
        // the node went away since its tip was read, or the backend of a load balancer that
        // answers is behind the one that said the tip (the height is above its chain): the
        // newest block the index holds, else the one below
        const failed = error instanceof GatewayError ? error.code : undefined;
        if (failed !== GRPC.UNAVAILABLE && failed !== GRPC.INVALID_ARGUMENT) throw error;
        const indexed = await indexTip(ctx);
        const below =
          indexed !== undefined && indexed < height ? indexed : failed === GRPC.INVALID_ARGUMENT ? height - 1 : 0;
        if (below < 1) throw error;
        await sendBlock(ctx, req, res, BigInt(below), latest);
      }
    },
  },
  {
    method: 'get',
    path: `${BASE}/:height`,
    tag: TAGS.blocks,
    summary:
      'The block at a height (from the index, else read through from the node); immutable: ETag, Cache-Control, 304',
    params: z.object({ height: heightSchema }),
    responses: { 200: answer('block_id, block, sdk_block') },
    handler: (ctx) => async (req, res) =>
      sendBlock(ctx, req, res, int64Param('height', req.params.height)!, 'immutable'),
  },
];
