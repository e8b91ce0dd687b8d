// Queries of module parameters that never change on the devnet: mint (no inflation) and gov v1.
import { toAscii } from '@cosmjs/encoding';
import {
  QueryParamsRequest as GovParamsRequest,
  QueryParamsResponse as GovParamsResponse,
} from 'cosmjs-types/cosmos/gov/v1/query';
import {
  QueryParamsRequest as GovLegacyParamsRequest,
  QueryParamsResponse as GovLegacyParamsResponse,
} from 'cosmjs-types/cosmos/gov/v1beta1/query';
import {
  QueryParamsRequest as MintParamsRequest,
  QueryParamsResponse as MintParamsResponse,
  QueryAnnualProvisionsRequest,
  QueryAnnualProvisionsResponse,
  QueryInflationRequest,
  QueryInflationResponse,
} from 'cosmjs-types/cosmos/mint/v1beta1/query';
import { GOV_PARAMS, MINT_PARAMS, NATIVE_DENOM } from '../constants.ts';
import { queryErrors } from './query-errors.ts';
import { decToProto, type QueryRoute, route } from './route.ts';

const seconds = (s: bigint) => ({ seconds: s, nanos: 0 });

const govParams = {
  minDeposit: [{ denom: NATIVE_DENOM, amount: GOV_PARAMS.minDepositAmount.toString() }],
  maxDepositPeriod: seconds(GOV_PARAMS.maxDepositPeriodSeconds),
  votingPeriod: seconds(GOV_PARAMS.votingPeriodSeconds),
  quorum: GOV_PARAMS.quorum,
  threshold: GOV_PARAMS.threshold,
  vetoThreshold: GOV_PARAMS.vetoThreshold,
  minInitialDepositRatio: GOV_PARAMS.minInitialDepositRatio,
  proposalCancelRatio: GOV_PARAMS.proposalCancelRatio,
  proposalCancelDest: '',
  expeditedVotingPeriod: seconds(GOV_PARAMS.expeditedVotingPeriodSeconds),
  expeditedThreshold: GOV_PARAMS.expeditedThreshold,
  expeditedMinDeposit: [{ denom: NATIVE_DENOM, amount: (GOV_PARAMS.minDepositAmount * 5n).toString() }],
  burnVoteQuorum: false,
  burnProposalDepositPrevote: false,
  burnVoteVeto: true,
  minDepositRatio: GOV_PARAMS.minDepositRatio,
};

export function paramsRoutes(): Record<string, QueryRoute> {
  return {
    '/cosmos.mint.v1beta1.Query/Params': route(MintParamsRequest, MintParamsResponse, () => ({
      params: {
        mintDenom: MINT_PARAMS.mintDenom,
        inflationRateChange: decToProto(MINT_PARAMS.inflationRateChange),
        inflationMax: decToProto(MINT_PARAMS.inflationMax),
        inflationMin: decToProto(MINT_PARAMS.inflationMin),
        goalBonded: decToProto(MINT_PARAMS.goalBonded),
        blocksPerYear: MINT_PARAMS.blocksPerYear,
      },
    })),
    '/cosmos.mint.v1beta1.Query/Inflation': route(QueryInflationRequest, QueryInflationResponse, () => ({
      inflation: toAscii(decToProto('0')),
    })),
    '/cosmos.mint.v1beta1.Query/AnnualProvisions': route(
      QueryAnnualProvisionsRequest,
      QueryAnnualProvisionsResponse,
      () => ({
        annualProvisions: toAscii(decToProto('0')),
      }),
    ),
    '/cosmos.gov.v1.Query/Params': route(GovParamsRequest, GovParamsResponse, ({ paramsType }) => {
      // SDK v0.47+: the requested legacy section is filled, the others are left out, `params` is always whole.
      switch (paramsType) {
        case 'voting':
          return { votingParams: { votingPeriod: govParams.votingPeriod }, params: govParams };
        case 'deposit':
          return {
            depositParams: { minDeposit: govParams.minDeposit, maxDepositPeriod: govParams.maxDepositPeriod },
            params: govParams,
          };
        case 'tallying':
          return {
            tallyParams: {
              quorum: govParams.quorum,
              threshold: govParams.threshold,
              vetoThreshold: govParams.vetoThreshold,
            },
            params: govParams,
          };
        default:
          throw queryErrors.invalidArgument(`unknown params type: ${paramsType}`);
      }
    }),
    // The legacy v1beta1 service (cosmjs's gov extension asks it) fills every section.
    '/cosmos.gov.v1beta1.Query/Params': route(GovLegacyParamsRequest, GovLegacyParamsResponse, ({ paramsType }) => {
      if (!['voting', 'deposit', 'tallying'].includes(paramsType))
        throw queryErrors.invalidArgument(`unknown params type: ${paramsType}`);
      return {
        votingParams: { votingPeriod: govParams.votingPeriod },
        depositParams: { minDeposit: govParams.minDeposit, maxDepositPeriod: govParams.maxDepositPeriod },
        tallyParams: {
          quorum: toAscii(decToProto(govParams.quorum)),
          threshold: toAscii(decToProto(govParams.threshold)),
          vetoThreshold: toAscii(decToProto(govParams.vetoThreshold)),
        },
      };
    }),
  };
}
