// The launchpad contract: creates CW20 tokens on a bonding curve, sells them for unative
// (buy) and buys them back through the CW20 receive hook (sell), and graduates a token to
// the AMM once its reserves reach a threshold priced from an oracle USD price of NATIVE.
// Its parts: launchpad-state.ts (parameters, curves), launchpad-execute.ts, launchpad-trade.ts,
// launchpad-graduation.ts and launchpad-query.ts.
import { z } from 'zod';
import { CODE_IDS } from './addresses.ts';
import { executeLaunchpad } from './launchpad-execute.ts';
import { queryLaunchpad } from './launchpad-query.ts';
import { createLaunchpad } from './launchpad-state.ts';
import { parseVariant } from './messages.ts';
import { type ContractCode, emptyResponse } from './types.ts';

const instantiateSchema = z.object({ admin: z.string(), amm: z.string() });

export const launchpadCode: ContractCode = {
  codeId: CODE_IDS.launchpad,
  instantiate(host, env, _info, rawMsg) {
    const init = parseVariant(instantiateSchema, rawMsg, 'launchpad::msg::InstantiateMsg', 'instantiate');
    const launchpad = createLaunchpad(host, env.contract, init);
    return {
      instance: {
        execute: (_env, info, rawExec) => executeLaunchpad(launchpad, info, rawExec),
        query: (rawQuery) => queryLaunchpad(launchpad, rawQuery),
      },
      response: emptyResponse(),
    };
  },
};
