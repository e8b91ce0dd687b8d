// The CometBFT 0.38 JSON-RPC methods the devnet serves, each answering with the result
// shape cosmjs's Comet38Client decodes. A method returns an object, or a string of
// pre-rendered JSON for large results (block_results embeds the stored results as they are).
// The handlers live in groups: status-methods.ts, abci-methods.ts, block-methods.ts and
// tx-methods.ts; this file is the table of names.
import { abciMethods } from './abci-methods.ts';
import { blockMethods } from './block-methods.ts';
import type { Method, MethodContext } from './method-context.ts';
import { statusMethods } from './status-methods.ts';
import { txMethods } from './tx-methods.ts';

/** Positional parameter names per method, for JSON-RPC calls that pass an array. */
export const POSITIONAL: Record<string, string[]> = {
  abci_query: ['path', 'data', 'height', 'prove'],
  block: ['height'],
  block_results: ['height'],
  commit: ['height'],
  blockchain: ['minHeight', 'maxHeight'],
  validators: ['height', 'page', 'per_page'],
  tx: ['hash', 'prove'],
  tx_search: ['query', 'prove', 'page', 'per_page', 'order_by'],
  broadcast_tx_sync: ['tx'],
  broadcast_tx_async: ['tx'],
  broadcast_tx_commit: ['tx'],
};

export function createMethods(ctx: MethodContext): Record<string, Method> {
  const status = statusMethods(ctx);
  const abci = abciMethods(ctx);
  const blocks = blockMethods(ctx);
  const txs = txMethods(ctx);
  return {
    health: status.health,
    status: status.status,
    genesis: status.genesis,
    abci_info: abci.info,
    abci_query: abci.query,
    block: blocks.block,
    block_results: blocks.results,
    commit: blocks.commit,
    blockchain: blocks.blockchain,
    validators: blocks.validators,
    tx: txs.tx,
    tx_search: txs.search,
    broadcast_tx_async: txs.broadcastAsync,
    broadcast_tx_sync: txs.broadcastSync,
    broadcast_tx_commit: txs.broadcastCommit,
    num_unconfirmed_txs: txs.unconfirmed,
  };
}
