// Queries of the auth and bank modules: accounts, balances, supply and denom metadata.
import { toAscii } from '@cosmjs/encoding';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
  QueryDenomMetadataRequest,
  QueryDenomMetadataResponse,
  QueryDenomsMetadataRequest,
  QueryDenomsMetadataResponse,
  QuerySpendableBalancesRequest,
  QuerySpendableBalancesResponse,
  QuerySupplyOfRequest,
  QuerySupplyOfResponse,
  QueryTotalSupplyRequest,
  QueryTotalSupplyResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import type { ChainState } from '../app/chain-state.ts';
import { NATIVE_METADATA } from '../constants.ts';
import { parseAccountAddress } from '../state/addresses.ts';
import { paginate } from './pagination.ts';
import { queryErrors } from './query-errors.ts';
import { type QueryRoute, route } from './route.ts';

function requireAddress(address: string) {
  if (!address) throw queryErrors.invalidArgument('empty address string is not allowed');
  if (!parseAccountAddress(address)) throw queryErrors.invalidArgument(`invalid address ${address}`);
}

export function authBankRoutes({ accounts, bank }: ChainState): Record<string, QueryRoute> {
  const balancesPage = (address: string, pagination: QueryAllBalancesRequest['pagination']) => {
    requireAddress(address);
    const { items, pagination: page } = paginate(
      bank.balances(address).map((coin) => ({ key: toAscii(coin.denom), item: coin })),
      pagination,
    );
    return { balances: items, pagination: page };
  };
  return {
    '/cosmos.auth.v1beta1.Query/Account': route(QueryAccountRequest, QueryAccountResponse, ({ address }) => {
      requireAddress(address);
      const account = accounts.get(address);
      if (!account) throw queryErrors.notFound(`account ${address} not found`);
      const base = BaseAccount.fromPartial({
        address,
        accountNumber: account.accountNumber,
        sequence: account.sequence,
        pubKey: account.pubkey
          ? { typeUrl: '/cosmos.crypto.secp256k1.PubKey', value: PubKey.encode({ key: account.pubkey }).finish() }
          : undefined,
      });
      return { account: { typeUrl: '/cosmos.auth.v1beta1.BaseAccount', value: BaseAccount.encode(base).finish() } };
    }),
    '/cosmos.bank.v1beta1.Query/Balance': route(QueryBalanceRequest, QueryBalanceResponse, ({ address, denom }) => {
      requireAddress(address);
      if (!denom) throw queryErrors.invalidArgument('invalid denom');
      return { balance: { denom, amount: bank.balance(address, denom).toString() } };
    }),
    '/cosmos.bank.v1beta1.Query/AllBalances': route(
      QueryAllBalancesRequest,
      QueryAllBalancesResponse,
      ({ address, pagination }) => balancesPage(address, pagination),
    ),
    // Nothing on the devnet is locked or vesting: spendable equals the balance.
    '/cosmos.bank.v1beta1.Query/SpendableBalances': route(
      QuerySpendableBalancesRequest,
      QuerySpendableBalancesResponse,
      ({ address, pagination }) => balancesPage(address, pagination),
    ),
    '/cosmos.bank.v1beta1.Query/TotalSupply': route(
      QueryTotalSupplyRequest,
      QueryTotalSupplyResponse,
      ({ pagination }) => {
        const { items, pagination: page } = paginate(
          bank.allSupply().map((coin) => ({ key: toAscii(coin.denom), item: coin })),
          pagination,
        );
        return { supply: items, pagination: page };
      },
    ),
    '/cosmos.bank.v1beta1.Query/SupplyOf': route(QuerySupplyOfRequest, QuerySupplyOfResponse, ({ denom }) => {
      if (!denom) throw queryErrors.invalidArgument('invalid denom');
      return { amount: { denom, amount: bank.supply(denom).toString() } };
    }),
    '/cosmos.bank.v1beta1.Query/DenomMetadata': route(
      QueryDenomMetadataRequest,
      QueryDenomMetadataResponse,
      ({ denom }) => {
        if (!denom) throw queryErrors.invalidArgument('invalid denom');
        if (denom !== NATIVE_METADATA.base) throw queryErrors.notFound(`client metadata for denom ${denom}`);
        return { metadata: NATIVE_METADATA };
      },
    ),
    '/cosmos.bank.v1beta1.Query/DenomsMetadata': route(
      QueryDenomsMetadataRequest,
      QueryDenomsMetadataResponse,
      ({ pagination }) => {
        const { items, pagination: page } = paginate(
          [{ key: toAscii(NATIVE_METADATA.base), item: NATIVE_METADATA }],
          pagination,
        );
        return { metadatas: items, pagination: page };
      },
    ),
  };
}
