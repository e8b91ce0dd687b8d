// Queries of the wasm module (smart queries, contract info), the tx service's Simulate, and
// the node info of the tendermint base service.
import { fromUtf8, toUtf8 } from '@cosmjs/encoding';
import {
  GetNodeInfoRequest,
  GetNodeInfoResponse,
  GetSyncingRequest,
  GetSyncingResponse,
} from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import {
  QueryContractInfoRequest,
  QueryContractInfoResponse,
  QuerySmartContractStateRequest,
  QuerySmartContractStateResponse,
} from 'cosmjs-types/cosmwasm/wasm/v1/query';
import type { ChainState } from '../app/chain-state.ts';
import { APP_VERSION, NODE_MONIKER } from '../constants.ts';
import type { Protocol } from '../core/protocol.ts';
import { WasmErrors } from '../errors.ts';
import { parseAccountAddress } from '../state/addresses.ts';
import type { TxRunner } from '../tx/run-tx.ts';
import { queryErrors } from './query-errors.ts';
import { type QueryRoute, route } from './route.ts';

export interface NodeIdentity {
  chainId: string;
  nodeId: string;
  listenAddr: string;
  rpcAddress: string;
}

export function wasmRoutes({ wasm }: ChainState): Record<string, QueryRoute> {
  return {
    '/cosmwasm.wasm.v1.Query/SmartContractState': route(
      QuerySmartContractStateRequest,
      QuerySmartContractStateResponse,
      ({ address, queryData }) => {
        if (!parseAccountAddress(address)) throw queryErrors.invalidArgument(`invalid contract address ${address}`);
        let msg: unknown;
        try {
          msg = JSON.parse(fromUtf8(queryData));
        } catch {
          throw WasmErrors.queryFailed('Error parsing into type: invalid JSON query');
        }
        return { data: toUtf8(JSON.stringify(wasm.querySmart(address, msg))) };
      },
    ),
    '/cosmwasm.wasm.v1.Query/ContractInfo': route(
      QueryContractInfoRequest,
      QueryContractInfoResponse,
      ({ address }) => {
        const contract = wasm.contract(address);
        if (!contract) throw queryErrors.notFound(`address ${address}: not found`);
        return {
          address,
          contractInfo: {
            codeId: BigInt(contract.codeId),
            creator: contract.creator,
            admin: contract.admin ?? '',
            label: contract.label,
            ibcPortId: '',
            ibc2PortId: '',
          },
        };
      },
    ),
  };
}

export function txServiceRoutes(runner: TxRunner): Record<string, QueryRoute> {
  return {
    '/cosmos.tx.v1beta1.Service/Simulate': route(SimulateRequest, SimulateResponse, ({ txBytes }) => {
      if (txBytes.length === 0) throw queryErrors.invalidArgument('empty txBytes is not allowed');
      const result = runner.simulate(txBytes);
      return {
        gasInfo: { gasWanted: 0n, gasUsed: result.gasUsed },
        result: {
          data: new Uint8Array(),
          log: result.log,
          events: result.events.map((e) => ({
            type: e.type,
            attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: true })),
          })),
          msgResponses: result.msgResponses,
        },
      };
    }),
  };
}

export function nodeInfoRoutes(identity: NodeIdentity, protocol: Protocol): Record<string, QueryRoute> {
  return {
    '/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo': route(GetNodeInfoRequest, GetNodeInfoResponse, () => ({
      defaultNodeInfo: {
        protocolVersion: { p2p: 8n, block: 11n, app: 0n },
        defaultNodeId: identity.nodeId,
        listenAddr: identity.listenAddr,
        network: identity.chainId,
        version: protocol.nodeVersion,
        channels: new Uint8Array([0x40, 0x20, 0x21, 0x22, 0x23, 0x30, 0x38, 0x60, 0x61, 0x00]),
        moniker: NODE_MONIKER,
        other: { txIndex: 'on', rpcAddress: identity.rpcAddress },
      },
      applicationVersion: {
        name: 'native',
        appName: 'natived',
        version: APP_VERSION,
        gitCommit: '',
        buildTags: 'devnet',
        goVersion: 'go1.22.0 (simulated devnet)',
        buildDeps: [],
        cosmosSdkVersion: protocol.sdkVersion,
      },
    })),
    '/cosmos.base.tendermint.v1beta1.Service/GetSyncing': route(GetSyncingRequest, GetSyncingResponse, () => ({
      syncing: false,
    })),
  };
}
