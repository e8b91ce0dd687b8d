// The chain's bridge module message, as the devnet's node decodes and answers it
// (native/bridge/v1/tx.proto, served by reflection: abci/reflection.ts):
//   message MsgBurnForBridgeOut { string sender = 1; cosmos.base.v1beta1.Coin amount = 2;
//                                 string destination_chain = 3; string destination_address = 4; }
//   message MsgBurnForBridgeOutResponse {}
// In cosmjs-types' codec shape (encode, decode, fromPartial), so a cosmjs Registry takes it too.
import { BinaryReader, BinaryWriter } from 'cosmjs-types/binary';
import { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';

export interface MsgBurnForBridgeOut {
  sender: string;
  amount?: Coin;
  destinationChain: string;
  destinationAddress: string;
}

/** Field numbers with protobuf's length-delimited wire type (2): every field is a string or a message. */
const FIELD = { sender: 1, amount: 2, destinationChain: 3, destinationAddress: 4 } as const;
const tagOf = (field: number) => (field << 3) | 2;

export const MsgBurnForBridgeOut = {
  typeUrl: '/native.bridge.v1.MsgBurnForBridgeOut',
  /** Proto3: a field holding its default value ('' or no coin) is left out. */
  encode(message: MsgBurnForBridgeOut, writer: BinaryWriter = BinaryWriter.create()): BinaryWriter {
    if (message.sender) writer.uint32(tagOf(FIELD.sender)).string(message.sender);
    if (message.amount) Coin.encode(message.amount, writer.uint32(tagOf(FIELD.amount)).fork()).ldelim();
    if (message.destinationChain) writer.uint32(tagOf(FIELD.destinationChain)).string(message.destinationChain);
    if (message.destinationAddress) writer.uint32(tagOf(FIELD.destinationAddress)).string(message.destinationAddress);
    return writer;
  },
  /** Unknown fields are skipped; a field that repeats keeps its last value (a message field, its last too). */
  decode(input: BinaryReader | Uint8Array, length?: number): MsgBurnForBridgeOut {
    const reader = input instanceof BinaryReader ? input : new BinaryReader(input);
    const end = length === undefined ? reader.len : reader.pos + length;
    const message = MsgBurnForBridgeOut.fromPartial({});
    while (reader.pos < end) {
      const tag = reader.uint32();
      const field = tag >>> 3;
      if (field === FIELD.sender) message.sender = reader.string();
      else if (field === FIELD.amount) message.amount = Coin.decode(reader, reader.uint32());
      else if (field === FIELD.destinationChain) message.destinationChain = reader.string();
      else if (field === FIELD.destinationAddress) message.destinationAddress = reader.string();
      else reader.skipType(tag & 7);
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
};

/** The burn's answer: an empty message. */
export type MsgBurnForBridgeOutResponse = Record<string, never>;

export const MsgBurnForBridgeOutResponse = {
  typeUrl: '/native.bridge.v1.MsgBurnForBridgeOutResponse',
  encode(_message: MsgBurnForBridgeOutResponse, writer: BinaryWriter = BinaryWriter.create()): BinaryWriter {
    return writer;
  },
  decode(input: BinaryReader | Uint8Array, length?: number): MsgBurnForBridgeOutResponse {
    const reader = input instanceof BinaryReader ? input : new BinaryReader(input);
    const end = length === undefined ? reader.len : reader.pos + length;
    while (reader.pos < end) reader.skipType(reader.uint32() & 7);
    return {};
  },
  fromPartial(_object: Partial<MsgBurnForBridgeOutResponse>): MsgBurnForBridgeOutResponse {
    return {};
  },
};
