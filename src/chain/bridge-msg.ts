// Protobuf codec of `/native.bridge.v1.MsgBurnForBridgeOut` (withdraw to another chain by
// burning supply here), in cosmjs-types' codec shape so a cosmjs Registry can sign it and the
// Chain API can decode it. Wire format:
//   message MsgBurnForBridgeOut { string sender = 1; cosmos.base.v1beta1.Coin amount = 2;
//                                 string destination_chain = 3; string destination_address = 4; }
//   message MsgBurnForBridgeOutResponse {}

import { wasmTypes } from '@cosmjs/cosmwasm-stargate';
import { type GeneratedType, Registry } from '@cosmjs/proto-signing';
import { defaultRegistryTypes } from '@cosmjs/stargate';
import { BinaryReader, BinaryWriter } from 'cosmjs-types/binary';
import { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';

export interface MsgBurnForBridgeOut {
  sender: string;
  amount?: Coin;
  destinationChain: string;
  destinationAddress: string;
}

export const MsgBurnForBridgeOut = {
  typeUrl: '/native.bridge.v1.MsgBurnForBridgeOut',
  encode(message: MsgBurnForBridgeOut, writer: BinaryWriter = BinaryWriter.create()): BinaryWriter {
    if (message.sender !== '') writer.uint32(10).string(message.sender);
    if (message.amount !== undefined) Coin.encode(message.amount, writer.uint32(18).fork()).ldelim();
    if (message.destinationChain !== '') writer.uint32(26).string(message.destinationChain);
    if (message.destinationAddress !== '') writer.uint32(34).string(message.destinationAddress);
    return writer;
  },
  decode(input: BinaryReader | Uint8Array, length?: number): MsgBurnForBridgeOut {
    const reader = input instanceof BinaryReader ? input : new BinaryReader(input);
    const end = length === undefined ? reader.len : reader.pos + length;
    const message = MsgBurnForBridgeOut.fromPartial({});
    while (reader.pos < end) {
      const tag = reader.uint32();
      switch (tag >>> 3) {
        case 1:
          message.sender = reader.string();
          break;
        case 2:
          message.amount = Coin.decode(reader, reader.uint32());
          break;
        case 3:
          message.destinationChain = reader.string();
          break;
        case 4:
          message.destinationAddress = reader.string();
          break;
        default:
          reader.skipType(tag & 7);
      }
    }
    return message;
  },
  fromPartial(object: Partial<MsgBurnForBridgeOut>): MsgBurnForBridgeOut {
    return {
      sender: object.sender ?? '',
      amount: object.amount ? Coin.fromPartial(object.amount) : undefined,
      destinationChain: object.destinationChain ?? '',
      destinationAddress: object.destinationAddress ?? '',
    };
  },
  /** The SDK's JSON (gRPC-gateway) rendering: snake_case, as the Chain API shows messages. */
  toJSON(message: MsgBurnForBridgeOut) {
    return {
      sender: message.sender,
      amount: message.amount ? { denom: message.amount.denom, amount: message.amount.amount } : null,
      destination_chain: message.destinationChain,
      destination_address: message.destinationAddress,
    };
  },
};

export const MsgBurnForBridgeOutResponse = {
  typeUrl: '/native.bridge.v1.MsgBurnForBridgeOutResponse',
  encode(_: Record<string, never>, writer: BinaryWriter = BinaryWriter.create()): BinaryWriter {
    return writer;
  },
  decode(_input: BinaryReader | Uint8Array, _length?: number): Record<string, never> {
    return {};
  },
  fromPartial(_: Record<string, never>): Record<string, never> {
    return {};
  },
};

/** cosmjs's default Stargate and CosmWasm types plus the bridge message. */
export function createNativeRegistry(): Registry {
  return new Registry([
    ...defaultRegistryTypes,
    ...wasmTypes,
    [MsgBurnForBridgeOut.typeUrl, MsgBurnForBridgeOut as unknown as GeneratedType],
  ]);
}
