// Queries of the staking module: validators (with status filter), one validator, the
// delegations of a validator or a delegator, one delegation, the pool and the params.
import { fromBech32 } from '@cosmjs/encoding';
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import {
  QueryDelegationRequest,
  QueryDelegationResponse,
  QueryDelegatorDelegationsRequest,
  QueryDelegatorDelegationsResponse,
  QueryParamsRequest,
  QueryParamsResponse,
  QueryPoolRequest,
  QueryPoolResponse,
  QueryValidatorDelegationsRequest,
  QueryValidatorDelegationsResponse,
  QueryValidatorRequest,
  QueryValidatorResponse,
  QueryValidatorsRequest,
  QueryValidatorsResponse,
} from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { BondStatus, bondStatusFromJSON, type Validator } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import type { ChainState } from '../app/chain-state.ts';
import { NATIVE_DENOM, STAKING_PARAMS } from '../constants.ts';
import { MODULE_ACCOUNTS, parseAccountAddress, parseValoperAddress } from '../state/addresses.ts';
import type { Delegation, ValidatorRecord } from '../state/staking.ts';
import { lengthPrefixed, paginate } from './pagination.ts';
import { queryErrors } from './query-errors.ts';
import { decToProto, type QueryRoute, route } from './route.ts';

const sharesDec = (shares: bigint) => `${shares}000000000000000000`;
const addressBytes = (address: string) => fromBech32(address, 256).data;

export function validatorProto(v: ValidatorRecord): Validator {
  return {
    operatorAddress: v.operatorAddress,
    consensusPubkey: {
      typeUrl: '/cosmos.crypto.ed25519.PubKey',
      value: PubKey.encode({ key: v.consensusPubkey }).finish(),
    },
    jailed: false,
    status: v.status,
    tokens: v.tokens.toString(),
    delegatorShares: sharesDec(v.shares),
    description: { moniker: v.moniker, identity: '', website: v.website, securityContact: '', details: v.details },
    unbondingHeight: v.unbondingHeight,
    unbondingTime: { seconds: v.unbondingTimeSeconds, nanos: 0 },
    commission: {
      commissionRates: {
        rate: decToProto(v.commissionRate),
        maxRate: decToProto(v.commissionMaxRate),
        maxChangeRate: decToProto(v.commissionMaxChangeRate),
      },
      updateTime: { seconds: 0n, nanos: 0 },
    },
    minSelfDelegation: v.minSelfDelegation.toString(),
    unbondingOnHoldRefCount: 0n,
    unbondingIds: [],
  };
}

const delegationResponse = (d: Delegation) => ({
  delegation: { delegatorAddress: d.delegator, validatorAddress: d.validator, shares: sharesDec(d.shares) },
  balance: { denom: NATIVE_DENOM, amount: d.shares.toString() },
});

export function stakingRoutes({ staking, bank }: ChainState): Record<string, QueryRoute> {
  const requireValidator = (address: string) => {
    if (!parseValoperAddress(address)) throw queryErrors.invalidArgument(`invalid validator address ${address}`);
    const validator = staking.validator(address);
    if (!validator) throw queryErrors.notFound(`validator ${address} not found`);
    return validator;
  };
  return {
    '/cosmos.staking.v1beta1.Query/Validators': route(
      QueryValidatorsRequest,
      QueryValidatorsResponse,
      ({ status, pagination }) => {
        let wanted: BondStatus | null = null;
        if (status) {
          wanted = bondStatusFromJSON(status);
          if (wanted === BondStatus.UNRECOGNIZED || wanted === BondStatus.BOND_STATUS_UNSPECIFIED)
            throw queryErrors.invalidArgument(`invalid validator status ${status}`);
        }
        const matching = staking.validators().filter((v) => wanted === null || v.status === wanted);
        const { items, pagination: page } = paginate(
          matching.map((v) => ({ key: lengthPrefixed(addressBytes(v.operatorAddress)), item: v })),
          pagination,
        );
        return { validators: items.map(validatorProto), pagination: page };
      },
    ),
    '/cosmos.staking.v1beta1.Query/Validator': route(
      QueryValidatorRequest,
      QueryValidatorResponse,
      ({ validatorAddr }) => ({
        validator: validatorProto(requireValidator(validatorAddr)),
      }),
    ),
    '/cosmos.staking.v1beta1.Query/ValidatorDelegations': route(
      QueryValidatorDelegationsRequest,
      QueryValidatorDelegationsResponse,
      ({ validatorAddr, pagination }) => {
        requireValidator(validatorAddr);
        const { items, pagination: page } = paginate(
          staking
            .delegationsTo(validatorAddr)
            .map((d) => ({ key: lengthPrefixed(addressBytes(d.delegator)), item: d })),
          pagination,
        );
        return { delegationResponses: items.map(delegationResponse), pagination: page };
      },
    ),
    '/cosmos.staking.v1beta1.Query/DelegatorDelegations': route(
      QueryDelegatorDelegationsRequest,
      QueryDelegatorDelegationsResponse,
      ({ delegatorAddr, pagination }) => {
        if (!parseAccountAddress(delegatorAddr))
          throw queryErrors.invalidArgument(`invalid delegator address ${delegatorAddr}`);
        const { items, pagination: page } = paginate(
          staking
            .delegationsOf(delegatorAddr)
            .map((d) => ({ key: lengthPrefixed(addressBytes(d.validator)), item: d })),
          pagination,
        );
        return { delegationResponses: items.map(delegationResponse), pagination: page };
      },
    ),
    '/cosmos.staking.v1beta1.Query/Delegation': route(
      QueryDelegationRequest,
      QueryDelegationResponse,
      ({ delegatorAddr, validatorAddr }) => {
        const delegation = staking.delegation(delegatorAddr, validatorAddr);
        if (!delegation)
          throw queryErrors.notFound(
            `delegation with delegator ${delegatorAddr} not found for validator ${validatorAddr}`,
          );
        return { delegationResponse: delegationResponse(delegation) };
      },
    ),
    '/cosmos.staking.v1beta1.Query/Pool': route(QueryPoolRequest, QueryPoolResponse, () => ({
      pool: {
        bondedTokens: bank.balance(MODULE_ACCOUNTS.bondedPool, NATIVE_DENOM).toString(),
        notBondedTokens: bank.balance(MODULE_ACCOUNTS.notBondedPool, NATIVE_DENOM).toString(),
      },
    })),
    '/cosmos.staking.v1beta1.Query/Params': route(QueryParamsRequest, QueryParamsResponse, () => ({
      params: {
        unbondingTime: { seconds: STAKING_PARAMS.unbondingTimeSeconds, nanos: 0 },
        maxValidators: STAKING_PARAMS.maxValidators,
        maxEntries: STAKING_PARAMS.maxEntries,
        historicalEntries: STAKING_PARAMS.historicalEntries,
        bondDenom: STAKING_PARAMS.bondDenom,
        minCommissionRate: decToProto(STAKING_PARAMS.minCommissionRate),
      },
    })),
  };
}
