// cosmos.reflection.v1 (SDK 0.47+): FileDescriptors answers the protobuf file descriptors
// of the chain's own message types, from which a client decodes messages it has no codec
// for. The devnet's own module is the bridge (native/bridge/v1/tx.proto); the answer holds
// its file and the file it imports (cosmos/base/v1beta1/coin.proto, reduced to Coin).
import { BinaryWriter } from 'cosmjs-types/binary';
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProto,
} from 'cosmjs-types/google/protobuf/descriptor';
import type { QueryRoute } from './route.ts';

export const REFLECTION_PATH = '/cosmos.reflection.v1.ReflectionService/FileDescriptors';

const COIN_FILE = 'cosmos/base/v1beta1/coin.proto';
export const BRIDGE_FILE = 'native/bridge/v1/tx.proto';

/** A singular proto3 field; `message` is the fully qualified type of a message field. */
function field(name: string, number: number, message?: string) {
  return {
    name,
    number,
    label: FieldDescriptorProto_Label.LABEL_OPTIONAL,
    type: message ? FieldDescriptorProto_Type.TYPE_MESSAGE : FieldDescriptorProto_Type.TYPE_STRING,
    typeName: message ?? '',
    jsonName: name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
  };
}

const coinFile = FileDescriptorProto.fromPartial({
  name: COIN_FILE,
  package: 'cosmos.base.v1beta1',
  messageType: [{ name: 'Coin', field: [field('denom', 1), field('amount', 2)] }],
  options: { goPackage: 'github.com/cosmos/cosmos-sdk/types' },
  syntax: 'proto3',
});

const bridgeFile = FileDescriptorProto.fromPartial({
  name: BRIDGE_FILE,
  package: 'native.bridge.v1',
  dependency: [COIN_FILE],
  messageType: [
    {
      name: 'MsgBurnForBridgeOut',
      field: [
        field('sender', 1),
        field('amount', 2, '.cosmos.base.v1beta1.Coin'),
        field('destination_chain', 3),
        field('destination_address', 4),
      ],
    },
    { name: 'MsgBurnForBridgeOutResponse' },
  ],
  service: [
    {
      name: 'Msg',
      method: [
        {
          name: 'BurnForBridgeOut',
          inputType: '.native.bridge.v1.MsgBurnForBridgeOut',
          outputType: '.native.bridge.v1.MsgBurnForBridgeOutResponse',
        },
      ],
    },
  ],
  syntax: 'proto3',
});

/** FileDescriptorsResponse { repeated google.protobuf.FileDescriptorProto files = 1; }, dependencies first. */
function fileDescriptorsResponse(files: readonly FileDescriptorProto[]): Uint8Array {
  const writer = BinaryWriter.create();
  for (const file of files) FileDescriptorProto.encode(file, writer.uint32(10).fork()).ldelim();
  return writer.finish();
}

export function reflectionRoutes(): Record<string, QueryRoute> {
  const answer = fileDescriptorsResponse([coinFile, bridgeFile]);
  return { [REFLECTION_PATH]: () => answer.slice() };
}
