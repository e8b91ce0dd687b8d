// The CometBFT 0.38 JSON-RPC methods the devnet serves, each answering with the result
// shape cosmjs's Comet38Client decodes. A method returns an object, or a string of
// pre-rendered JSON for large results (block_results embeds the stored results as they are).
import { toBase64, toHex } from '@cosmjs/encoding';
import type { AbciQuery } from '../abci/router.ts';
import { renderTxResult } from '../blocks/block.ts';
import { CONSENSUS_PARAMS } from '../blocks/consensus.ts';
import { formatRfc3339Nano } from '../blocks/time.ts';
import { unpackPosition } from '../blocks/tx-index.ts';
import { APP_VERSION, COMETBFT_VERSION, NODE_MONIKER } from '../constants.ts';
import { type DevnetNode, DuplicateTxError } from '../node.ts';
import type { TxResult } from '../tx/run-tx.ts';
import { rpcErrors } from './errors.ts';
import type { Params } from './params.ts';
import { blockSize, hex, renderBlock, renderBlockId, renderCommit, renderHeader, renderTx } from './render.ts';
import { pageBounds, parseQuery, searchTxs } from './tx-search.ts';

export interface MethodContext {
  node: DevnetNode;
  abciQuery: AbciQuery;
  nodeId: string;
  listenAddr: string;
  rpcAddress: string;
  genesisAppState: () => unknown;
  /** How long broadcast_tx_commit waits for inclusion. */
  commitTimeoutMs: number;
}

export type MethodResult = object | string;
export type Method = (params: Params) => MethodResult | Promise<MethodResult>;

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

const pubKeyJson = (key: Uint8Array) => ({ type: 'tendermint/PubKeyEd25519', value: toBase64(key) });

const checkTxJson = (result: TxResult) => ({ ...renderTxResult(result), data: null });

export function createMethods(ctx: MethodContext): Record<string, Method> {
  const { node } = ctx;
  const { store, consensus } = node;

  /** CometBFT's getHeight: an absent height means the latest. */
  const heightParam = (params: Params, name = 'height') => {
    const height = params.int(name);
    if (height === undefined) return store.height;
    if (height <= 0) throw rpcErrors.internal(`height must be greater than 0, but got ${height}`);
    if (height > store.height)
      throw rpcErrors.internal(
        `height ${height} must be less than or equal to the current blockchain height ${store.height}`,
      );
    return height;
  };
  const requireTx = (params: Params) => {
    const tx = params.bytes('tx');
    if (!tx || tx.length === 0)
      throw rpcErrors.invalidParams('error converting json params to arguments: tx: empty transaction');
    return tx;
  };
  const submit = (tx: Uint8Array) => {
    try {
      return node.submit(tx);
    } catch (error) {
      if (error instanceof DuplicateTxError) throw rpcErrors.internal(error.message);
      throw error;
    }
  };

  return {
    health: () => ({}),

    status: () => {
      const latest = store.latestMeta()!;
      const earliest = store.meta(1)!;
      const proposer = consensus.validators[0]!;
      return {
        node_info: {
          protocol_version: { p2p: '8', block: '11', app: '0' },
          id: ctx.nodeId,
          listen_addr: ctx.listenAddr,
          network: node.chainId,
          version: COMETBFT_VERSION,
          channels: '40202122233038606100',
          moniker: NODE_MONIKER,
          other: { tx_index: 'on', rpc_address: ctx.rpcAddress },
        },
        sync_info: {
          latest_block_hash: hex(latest.hash),
          latest_app_hash: hex(node.appHash),
          latest_block_height: String(latest.header.height),
          latest_block_time: formatRfc3339Nano(latest.header.timeNs),
          earliest_block_hash: hex(earliest.hash),
          earliest_app_hash: hex(earliest.header.appHash),
          earliest_block_height: '1',
          earliest_block_time: formatRfc3339Nano(earliest.header.timeNs),
          catching_up: false,
        },
        validator_info: {
          address: hex(proposer.address),
          pub_key: pubKeyJson(proposer.pubkey),
          voting_power: proposer.votingPower.toString(),
        },
      };
    },

    abci_info: () => ({
      response: {
        data: 'native',
        version: APP_VERSION,
        app_version: '1',
        last_block_height: String(store.height),
        last_block_app_hash: toBase64(node.appHash),
      },
    }),

    abci_query: (params) => {
      const path = params.string('path');
      if (!path) throw rpcErrors.invalidParams('error converting json params to arguments: path: empty path');
      const data = params.hex('data') ?? new Uint8Array();
      const answer = ctx.abciQuery(path, data);
      return {
        response: {
          code: answer.code,
          log: answer.log,
          info: '',
          index: '0',
          key: null,
          value: answer.code === 0 ? toBase64(answer.value) : null,
          proofOps: null,
          height: String(store.height),
          codespace: answer.codespace,
        },
      };
    },

    block: (params) => renderBlock(store.get(heightParam(params))!, store, consensus),

    block_results: (params) => {
      const height = heightParam(params);
      const block = store.meta(height)!;
      const results = block.txCount ? store.resultsJson(height) : 'null';
      const tail = JSON.stringify({
        finalize_block_events: [],
        validator_updates: null,
        consensus_param_updates: CONSENSUS_PARAMS,
        app_hash: toBase64(store.meta(height + 1)?.header.appHash ?? node.appHash),
      });
      return `{"height":"${height}","txs_results":${results},${tail.slice(1)}`;
    },

    commit: (params) => {
      const height = heightParam(params);
      const block = store.meta(height)!;
      return {
        signed_header: { header: renderHeader(block), commit: renderCommit(block, consensus) },
        canonical: true,
      };
    },

    blockchain: (params) => {
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
        const block = store.meta(h)!;
        metas.push({
          block_id: renderBlockId(block),
          block_size: String(blockSize(block)),
          header: renderHeader(block),
          num_txs: String(block.txCount),
        });
      }
      return { last_height: String(latest), block_metas: metas };
    },

    validators: (params) => {
      const height = heightParam(params);
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
    },

    genesis: () => ({
      genesis: {
        genesis_time: formatRfc3339Nano(node.genesisTimeNs),
        chain_id: node.chainId,
        initial_height: '1',
        consensus_params: CONSENSUS_PARAMS,
        validators: consensus.validators.map((v, i) => ({
          address: hex(v.address),
          pub_key: pubKeyJson(v.pubkey),
          power: v.votingPower.toString(),
          name: `validator-${i}`,
        })),
        app_hash: '',
        app_state: ctx.genesisAppState(),
      },
    }),

    tx: (params) => {
      const hash = params.bytes('hash');
      if (!hash) throw rpcErrors.invalidParams('error converting json params to arguments: hash: missing');
      const position = store.index.position(toHex(hash).toUpperCase());
      if (position === undefined) throw rpcErrors.internal(`tx (${toHex(hash).toUpperCase()}) not found`);
      const { height, index } = unpackPosition(position);
      return renderTx(store, height, index);
    },

    tx_search: (params) => {
      const conditions = parseQuery(params.string('query') ?? '');
      const order = params.string('order_by') ?? '';
      if (order !== '' && order !== 'asc' && order !== 'desc')
        throw rpcErrors.internal('expected order_by to be either `asc` or `desc` or empty');
      const matches = searchTxs(store, conditions);
      const { start, end } = pageBounds(matches.length, { page: params.int('page'), perPage: params.int('per_page') });
      const ordered = order === 'desc' ? matches.slice().reverse() : matches;
      const txs = ordered.slice(start, end).map((p) => {
        const { height, index } = unpackPosition(p);
        return renderTx(store, height, index);
      });
      return { txs, total_count: String(matches.length) };
    },

    broadcast_tx_async: (params) => {
      const { hash } = submit(requireTx(params));
      return { code: 0, data: '', log: '', codespace: '', hash };
    },

    broadcast_tx_sync: (params) => {
      const { hash, check } = submit(requireTx(params));
      return { code: check.code, data: '', log: check.log, codespace: check.codespace, hash };
    },

    broadcast_tx_commit: async (params) => {
      const { hash, check } = submit(requireTx(params));
      if (check.code !== 0) return { check_tx: checkTxJson(check), tx_result: {}, hash, height: '0' };
      const committed = await node.waitForTx(hash, ctx.commitTimeoutMs);
      if (!committed) throw rpcErrors.internal('timed out waiting for tx to be included in a block');
      return { check_tx: checkTxJson(check), tx_result: committed.result, hash, height: String(committed.height) };
    },

    num_unconfirmed_txs: () => ({
      n_txs: String(node.mempoolSize),
      total: String(node.mempoolSize),
      total_bytes: '0',
      txs: null,
    }),
  };
}
