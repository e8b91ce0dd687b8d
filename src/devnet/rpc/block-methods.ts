// Blocks and what belongs to them: block, block_results (in the shape of the node's version),
// commit, blockchain (header ranges) and validators.
import { toBase64 } from '@cosmjs/encoding';
import { consensusParamsOf } from '../blocks/consensus.ts';
import { rpcErrors } from './errors.ts';
import { JsonBytes } from './json-bytes.ts';
import { heightParam, type Method, type MethodContext, pubKeyJson } from './method-context.ts';
import { blockSize, hex, renderBlock, renderBlockEvents, renderBlockId, renderCommit, renderHeader } from './render.ts';
import { pageBounds } from './tx-search.ts';

export function blockMethods(ctx: MethodContext) {
  const { node } = ctx;
  const { store, consensus, protocol } = node;
  const paramUpdates = consensusParamsOf(protocol.comet, 'updates');

  const block: Method = (params) => renderBlock(store.get(heightParam(store, params))!, store, consensus);

  /**
   * ResultBlockResults: 0.34 and 0.37 report the block's own events as `begin_block_events`
   * and `end_block_events` (null when there are none); 0.38 as `finalize_block_events`, with
   * the app hash after the block.
   */
  const results: Method = (params) => {
    const height = heightParam(store, params);
    const meta = store.meta(height)!;
    const txsResults = meta.txCount ? store.resultsBytes(height) : 'null';
    const own = renderBlockEvents(node, store.blockEvents(height));
    const tail = JSON.stringify(
      protocol.blockEvents === 'finalize'
        ? {
            finalize_block_events: [...own.begin, ...own.end],
            validator_updates: null,
            consensus_param_updates: paramUpdates,
            app_hash: toBase64(store.meta(height + 1)?.header.appHash ?? node.appHash),
          }
        : {
            begin_block_events: own.begin.length ? own.begin : null,
            end_block_events: own.end.length ? own.end : null,
            validator_updates: null,
            consensus_param_updates: paramUpdates,
          },
    );
    // the stored results are sent as the bytes they are
    return new JsonBytes([`{"height":"${height}","txs_results":`, txsResults, `,${tail.slice(1)}`]);
  };

  const commit: Method = (params) => {
    const meta = store.meta(heightParam(store, params))!;
    return {
      signed_header: { header: renderHeader(meta), commit: renderCommit(meta, consensus) },
      canonical: true,
    };
  };

  const blockchain: Method = (params) => {
    const latest = store.height;
    let max = params.int('maxHeight') ?? latest;
    let min = params.int('minHeight') ?? 1;
    if (min < 0 || max < 0) throw rpcErrors.internal('heights must be non-negative');
    if (max === 0) max = latest;
    if (min === 0) min = 1;
    max = Math.min(max, latest);
    if (min > max) throw rpcErrors.internal(`min height ${min} can't be greater than max height ${max}`);
    min = Math.max(min, max - 19);
    const metas = [];
    for (let h = max; h >= min; h--) {
      const meta = store.meta(h)!;
      metas.push({
        block_id: renderBlockId(meta),
        block_size: String(blockSize(meta)),
        header: renderHeader(meta),
        num_txs: String(meta.txCount),
      });
    }
    return { last_height: String(latest), block_metas: metas };
  };

  const validators: Method = (params) => {
    const height = heightParam(store, params);
    const total = consensus.validators.length;
    const { start, end } = pageBounds(total, { page: params.int('page'), perPage: params.int('per_page') });
    return {
      block_height: String(height),
      validators: consensus.validators.slice(start, end).map((v) => ({
        address: hex(v.address),
        pub_key: pubKeyJson(v.pubkey),
        voting_power: v.votingPower.toString(),
        proposer_priority: '0',
      })),
      count: String(end - start),
      total: String(total),
    };
  };

  return { block, results, commit, blockchain, validators };
}
