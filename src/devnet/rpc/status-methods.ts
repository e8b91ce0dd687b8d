// The node's own facts: health, status (node info, sync info, validator info) and genesis,
// with the version and consensus parameters of the protocol the node speaks.
import { consensusParamsOf } from '../blocks/consensus.ts';
import { formatRfc3339Nano } from '../blocks/time.ts';
import { NODE_MONIKER } from '../constants.ts';
import { type Method, type MethodContext, pubKeyJson } from './method-context.ts';
import { hex } from './render.ts';

export function statusMethods(ctx: MethodContext) {
  const { node } = ctx;
  const { store, consensus, protocol } = node;

  const health: Method = () => ({});

  const status: Method = () => {
    const latest = store.latestMeta()!;
    const earliest = store.meta(1)!;
    const proposer = consensus.validators[0]!;
    return {
      node_info: {
        // P2P protocol 8 and block protocol 11 in 0.34, 0.37 and 0.38 alike; the app's version is 0.
        protocol_version: { p2p: '8', block: '11', app: '0' },
        id: ctx.nodeId,
        listen_addr: ctx.listenAddr,
        network: node.chainId,
        version: protocol.nodeVersion,
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
  };

  const genesis: Method = () => ({
    genesis: {
      genesis_time: formatRfc3339Nano(node.genesisTimeNs),
      chain_id: node.chainId,
      initial_height: '1',
      consensus_params: consensusParamsOf(protocol.comet, 'genesis'),
      validators: consensus.validators.map((v, i) => ({
        address: hex(v.address),
        pub_key: pubKeyJson(v.pubkey),
        power: v.votingPower.toString(),
        name: `validator-${i}`,
      })),
      app_hash: '',
      app_state: ctx.genesisAppState(),
    },
  });

  return { health, status, genesis };
}
