// The launchpad's execute messages: create_token (a new CW20 on a fresh curve), buy and the
// receive hook's sell (launchpad-trade.ts), and set_oracle_price (admin only).
import { z } from 'zod';
import { NATIVE_DENOM } from '../constants.ts';
import { ContractError } from '../errors.ts';
import { CODE_IDS } from './addresses.ts';
import { contractEventAttributes, customEventType } from './custom-events.ts';
import type { Cw20InstantiateMsg } from './cw20.ts';
import { assign, mapSet } from './journaled.ts';
import {
  CURVE_TOKENS,
  type Curve,
  EXECUTE_TYPE,
  type Launchpad,
  TOKEN_DECIMALS,
  TOKEN_TOTAL_SUPPLY,
  thresholdOf,
  VIRTUAL_NATIVE,
  VIRTUAL_TOKENS,
} from './launchpad-state.ts';
import { buy, sell } from './launchpad-trade.ts';
import { nativeFunds, parseVariant, uint128, unknownVariant, variantOf } from './messages.ts';
import { type ContractResponse, emptyResponse, type MessageInfo } from './types.ts';

const createTokenSchema = z.object({
  name: z.string().min(1).max(50),
  symbol: z.string().regex(/^[a-zA-Z-]{3,12}$/, 'symbol must be 3-12 letters or dashes'),
  image: z.string().max(512).default(''),
  description: z.string().max(1024).default(''),
});
const setOraclePriceSchema = z.object({ native_usd_micro: uint128 });

export function executeLaunchpad(launchpad: Launchpad, info: MessageInfo, rawExec: unknown): ContractResponse {
  const [variant, body] = variantOf(rawExec, EXECUTE_TYPE);
  switch (variant) {
    case 'create_token':
      return createToken(launchpad, info, body);
    case 'buy':
      return buy(launchpad, info, body);
    case 'receive':
      return sell(launchpad, info, body);
    case 'set_oracle_price':
      return setOraclePrice(launchpad, info, body);
    default:
      return unknownVariant(EXECUTE_TYPE, variant);
  }
}

function createToken(launchpad: Launchpad, info: MessageInfo, body: unknown): ContractResponse {
  const { host, config } = launchpad;
  const { name, symbol, image, description } = parseVariant(createTokenSchema, body, EXECUTE_TYPE, 'create_token');
  const paid = nativeFunds(info.funds, NATIVE_DENOM);
  if (paid !== config.creationFee)
    throw new ContractError(`Creation fee is ${config.creationFee}${NATIVE_DENOM}, got ${paid}${NATIVE_DENOM}`);
  const token = host.nextContractAddress(CODE_IDS.cw20);
  const curve: Curve = {
    token,
    creator: info.sender,
    graduated: false,
    virtualNative: VIRTUAL_NATIVE,
    virtualTokens: VIRTUAL_TOKENS,
    realNative: paid,
    realTokens: CURVE_TOKENS,
    finalNativeReserves: 0n,
  };
  mapSet(host.journal, launchpad.curves, token, curve);
  launchpad.order.push(token);
  host.journal.record(() => void launchpad.order.pop());
  const cw20: Cw20InstantiateMsg = {
    name,
    symbol,
    decimals: TOKEN_DECIMALS,
    initial_balances: [{ address: launchpad.self, amount: TOKEN_TOTAL_SUPPLY.toString() }],
    marketing: { project: name, description, marketing: info.sender, logo: image ? { url: image } : null },
  };
  const response = emptyResponse();
  response.attributes.push(['action', 'create_token'], ['token_address', token], ['creator', info.sender]);
  response.events.push({
    type: customEventType('tokenCreated'),
    attributes: contractEventAttributes('tokenCreated', {
      token_address: token,
      creator: info.sender,
      name,
      symbol,
      image,
      description,
      initial_reserves: paid,
    }),
    ledger: {
      kind: 'launch',
      token,
      source: 'launchpad',
      creator: info.sender,
      name,
      symbol,
      image,
      description,
      initialReserves: paid,
    },
  });
  response.messages.push({
    kind: 'instantiate',
    codeId: CODE_IDS.cw20,
    msg: cw20,
    funds: [],
    label: `${symbol} token`,
    admin: null,
  });
  response.data = { token_address: token };
  return response;
}

function setOraclePrice(launchpad: Launchpad, info: MessageInfo, body: unknown): ContractResponse {
  const { config } = launchpad;
  if (info.sender !== config.admin) throw new ContractError('Unauthorized: only the admin sets the oracle price');
  const { native_usd_micro } = parseVariant(setOraclePriceSchema, body, EXECUTE_TYPE, 'set_oracle_price');
  if (native_usd_micro === 0n) throw new ContractError('Oracle price must be positive');
  assign(launchpad.host.journal, config, { nativeUsdMicro: native_usd_micro });
  const response = emptyResponse();
  response.attributes.push(
    ['action', 'set_oracle_price'],
    ['native_usd_micro', native_usd_micro.toString()],
    ['graduation_threshold', thresholdOf(launchpad).toString()],
  );
  return response;
}
