// Transactions and blocks printed as a real node's gateway prints them, for chains other
// than the devnet: real txs (their bytes from the blocks they were recorded in) rendered
// and compared with the JSON the node answered for them (test/fixtures/cosmos-rest/,
// SOURCES.md): authz, feegrant, gov v1beta1 and v1 (enums by name), multisig signers,
// IBC (oneofs, HexBytes), LegacyDec, vesting; the chain's own types learned from its
// reflection service (descriptors built here, answered by a fake ABCI query); `logs`
// parsed from a pre-0.50 log; block evidence.
import { sha256 } from '@cosmjs/crypto';
import { fromBase64, fromHex, toBase64, toHex } from '@cosmjs/encoding';
import { BinaryWriter } from 'cosmjs-types/binary';
import { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { PubKey as Secp256k1PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { AllowedMsgAllowance, PeriodicAllowance } from 'cosmjs-types/cosmos/feegrant/v1beta1/feegrant';
import { MsgGrantAllowance } from 'cosmjs-types/cosmos/feegrant/v1beta1/tx';
import { MsgVote } from 'cosmjs-types/cosmos/gov/v1beta1/tx';
import { FileDescriptorsResponse } from 'cosmjs-types/cosmos/reflection/v1/reflection';
import { MsgEditValidator } from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import {
  FieldDescriptorProto,
  FileDescriptorProto,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
} from 'cosmjs-types/google/protobuf/descriptor';
import { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type BlockParts, blockJson, blockJsonBytes, cometBlockJson } from '../../src/api/chain/block-json.ts';
import { anyJson, schemaJson } from '../../src/api/chain/proto-json.ts';
import {
  eventsInBase64,
  logsOf,
  type TxRecord,
  txJson,
  txResponseJson,
  txResponseText,
} from '../../src/api/chain/tx-json.ts';
import { MsgBurnForBridgeOut } from '../../src/chain/bridge-msg.ts';
import { readEvents, type WireEvent } from '../../src/chain/node-events.ts';
import { builtinSchema, builtinTypeUrls, FIELD_HINTS, warmBuiltinTypes } from '../../src/chain/proto-types.ts';
import {
  type ChainTypes,
  chainTypes,
  chainTypesOf,
  FILE_DESCRIPTORS_PATH,
  loadChainTypes,
  NO_CHAIN_TYPES,
  startChainTypes,
  useChainTypes,
} from '../../src/chain/reflection.ts';
import { type CometBlock, restBlock, restEvidence } from '../../src/chain/rest-block.ts';
import { packEvents, type RestEvent, unpackEvents, unpackEventsJson } from '../../src/chain/stored-events.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { fixture } from '../helpers/rest-shape.ts';

const test = suite('chain API: txs and blocks of any chain, as a node prints them');

// biome-ignore lint/suspicious/noExplicitAny: recorded JSON, read by path
type Json = any;

const TX_BYTES = fixture('tx-bytes-cryptoorg') as Record<string, string>;
const recorded = (name: string) => fixture(`tx-cryptoorg-${name}`) as Json;
const bytesOf = (name: string) => fromBase64(TX_BYTES[name]!);

/** The recording wrote some bech32 addresses in upper case; the signed bytes hold them in lower case. */
function lowerAddresses(v: unknown): unknown {
  if (typeof v === 'string') return /^[A-Z]+1[02-9AC-HJ-NP-Z]{38,}$/.test(v) ? v.toLowerCase() : v;
  if (Array.isArray(v)) return v.map(lowerAddresses);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, lowerAddresses(x)]));
  return v;
}

/** A copy without the fields at these paths (`a.b.0.c`): fields the recording node's SDK did not have yet. */
function without(v: unknown, paths: readonly string[]): Json {
  const copy = structuredClone(v) as Json;
  for (const p of paths) {
    const keys = p.split('.');
    const last = keys.pop()!;
    const parent = keys.reduce((o, k) => o?.[k], copy);
    assert.ok(parent && last in parent, `${p} is in the rendered tx`);
    delete parent[last];
  }
  return copy;
}

/** Every key path in order, so that two bodies must also agree on key order. */
function keyOrder(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => keyOrder(x, `${path}[${i}]`));
  if (v && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => [`${path}.${k}`, ...keyOrder(x, `${path}.${k}`)]);
  return [];
}

function sameJson(actual: unknown, expected: unknown, what: string) {
  assert.equal(actual, expected, what);
  assert.equal(keyOrder(actual), keyOrder(expected), `${what}: key order`);
}

/** What each recorded tx's node did not print, being older than the protos known here (SDK 0.50, ibc-go v10). */
const OLDER: Record<string, string[]> = {
  'authz-exec-send': ['auth_info.tip'],
  'authz-grant-stake': ['auth_info.tip'],
  // SendAuthorization.allow_list: SDK 0.47
  'authz-grant-send': ['auth_info.tip', 'body.messages.0.grant.authorization.allow_list'],
  'feegrant-basic-allowance': ['auth_info.tip'],
  'gov-vote': ['auth_info.tip'],
  'gov-v1-vote': [],
  'gov-v1-vote-weighted': [],
  // gov v1 MsgSubmitProposal title and summary: SDK 0.47; expedited: 0.50
  'gov-v1-software-upgrade': ['body.messages.0.title', 'body.messages.0.summary', 'body.messages.0.expedited'],
  'multisig-send': ['auth_info.tip'],
  // MsgTransfer memo: ibc-go v5; encoding: v10
  'ibc-transfer': ['auth_info.tip', 'body.messages.0.memo', 'body.messages.0.encoding'],
  'ibc-recv-packet': ['auth_info.tip'],
  'ibc-create-client': ['auth_info.tip'],
  'create-validator': ['auth_info.tip'],
  'nft-mint': ['auth_info.tip'],
  'vesting-account': ['auth_info.tip'],
  'gov-param-change-proposal': ['auth_info.tip'],
  'failed-undelegate': ['auth_info.tip'],
};

/** The signers whose keys are ethermint's ethsecp256k1 (Cronos), a type cosmjs-types does not have. */
const ETH_KEYED = ['gov-v1-vote', 'gov-v1-vote-weighted', 'gov-v1-software-upgrade', 'ibc-transfer'];
const ETH_KEY = '/ethermint.crypto.v1.ethsecp256k1.PubKey';

/** ibc-go v7 renamed MsgUpdateClient's `header` (field 2) to `client_message`. */
function renameUpdateClientHeader(tx: Json) {
  const m = tx.body.messages[0];
  tx.body.messages[0] = Object.fromEntries(
    Object.entries(m).map(([k, v]) => [k === 'header' ? 'client_message' : k, v]),
  );
  return tx;
}

/** The recorded `tx` as this service prints it from the same bytes. */
function expectedTx(name: string, chainKnowsEthKey: boolean): Json {
  let tx = lowerAddresses(recorded(name).tx) as Json;
  if (name === 'ibc-recv-packet') tx = renameUpdateClientHeader(tx);
  if (ETH_KEYED.includes(name) && !chainKnowsEthKey) {
    const info = tx.auth_info.signer_infos[0];
    assert.is(info.public_key['@type'], ETH_KEY);
    // not known without the chain's types: the Any as it is (PubKey { bytes key = 1 })
    const value = toBase64(Secp256k1PubKey.encode({ key: fromBase64(info.public_key.key) }).finish());
    info.public_key = { '@type': ETH_KEY, value };
  }
  return tx;
}

test('the txs of the recording are its blocks’ bytes (their hashes are the recorded txhash)', () => {
  const names = Object.keys(OLDER);
  assert.equal(Object.keys(TX_BYTES).sort(), [...names].sort());
  for (const name of names) {
    assert.is(toHex(sha256(bytesOf(name))).toUpperCase(), recorded(name).tx_response.txhash, name);
  }
});

test('every recorded tx prints as its node printed it: authz, feegrant, gov enums, multisig, IBC, LegacyDec', () => {
  for (const name of Object.keys(OLDER)) {
    if (name === 'nft-mint') continue; // a chain module's own type: with reflection, below
    sameJson(without(txJson(bytesOf(name)), OLDER[name]!), expectedTx(name, false), name);
  }
});

test('a few values the gateway prints its own way, from those txs', () => {
  const grant = txJson(bytesOf('authz-grant-stake'))!.body.messages[0] as Json;
  // StakeAuthorization's oneof: only allow_list, and the enum by name
  assert.equal(Object.keys(grant.grant.authorization), ['@type', 'max_tokens', 'allow_list', 'authorization_type']);
  assert.is(grant.grant.authorization.authorization_type, 'AUTHORIZATION_TYPE_DELEGATE');
  const exec = txJson(bytesOf('authz-exec-send'))!.body.messages[0] as Json;
  assert.is(exec.msgs[0]['@type'], '/cosmos.bank.v1beta1.MsgSend');
  const vote = txJson(bytesOf('gov-vote'))!.body.messages[0] as Json;
  assert.is(vote.option, 'VOTE_OPTION_YES');
  const validator = txJson(bytesOf('create-validator'))!.body.messages[0] as Json;
  assert.match(validator.commission.rate, /^\d+\.\d{18}$/);
  const multisig = txJson(bytesOf('multisig-send'))!.auth_info.signer_infos[0]!;
  assert.is((multisig.public_key as Json)['@type'], '/cosmos.crypto.multisig.LegacyAminoPubKey');
  assert.is((multisig.public_key as Json).public_keys.length, 3);
  assert.ok(multisig.mode_info?.multi);
  const update = txJson(bytesOf('ibc-recv-packet'))!.body.messages[0] as Json;
  // tendermint.crypto.PublicKey's oneof: only the member that is set
  assert.equal(Object.keys(update.client_message.validator_set.validators[0].pub_key), ['ed25519']);
  assert.is(update.client_message.signed_header.commit.signatures[0].block_id_flag, 'BLOCK_ID_FLAG_COMMIT');
  const client = txJson(bytesOf('ibc-create-client'))!.body.messages[0] as Json;
  // ibc's ConsensusState.next_validators_hash is CometBFT HexBytes: hex, not base64
  assert.match(client.consensus_state.next_validators_hash, /^[0-9A-F]{64}$/);
});

test('an SDK 0.53 unordered tx prints unordered and timeout_timestamp after timeout_height; a tx without them does not', () => {
  const raw = TxRaw.decode(bytesOf('gov-vote'));
  const body = TxBody.decode(raw.bodyBytes);
  const unordered = TxRaw.encode({
    ...raw,
    bodyBytes: TxBody.encode({
      ...body,
      unordered: true,
      timeoutTimestamp: { seconds: 1_750_000_000n, nanos: 0 },
    }).finish(),
  }).finish();
  const printed = txJson(unordered)!.body as Json;
  assert.equal(Object.keys(printed), [
    'messages',
    'memo',
    'timeout_height',
    'unordered',
    'timeout_timestamp',
    'extension_options',
    'non_critical_extension_options',
  ]);
  assert.is(printed.unordered, true);
  assert.is(printed.timeout_timestamp, '2025-06-15T15:06:40Z');
  assert.not.ok('unordered' in (txJson(bytesOf('gov-vote'))!.body as Json));
});

test('enums by name, 0 included; a number the enum does not name stays a number', () => {
  const vote = (option: number) =>
    anyJson({
      typeUrl: MsgVote.typeUrl,
      value: MsgVote.encode({ proposalId: 7n, voter: 'cosmos1x', option }).finish(),
    });
  assert.equal(vote(0), {
    '@type': '/cosmos.gov.v1beta1.MsgVote',
    proposal_id: '7',
    voter: 'cosmos1x',
    option: 'VOTE_OPTION_UNSPECIFIED',
  });
  assert.is(vote(4).option, 'VOTE_OPTION_NO_WITH_VETO');
  assert.is(vote(99).option, 99);
});

test('LegacyDec with 18 decimals; a nullable one left empty is null', () => {
  const edit = (commissionRate: string, minSelfDelegation: string) =>
    anyJson({
      typeUrl: MsgEditValidator.typeUrl,
      value: MsgEditValidator.encode(
        MsgEditValidator.fromPartial({ validatorAddress: 'cosmosvaloper1x', commissionRate, minSelfDelegation }),
      ).finish(),
    });
  const unset = edit('', '');
  assert.is(unset.commission_rate, null);
  assert.is(unset.min_self_delegation, null);
  assert.equal(unset.description, { moniker: '', identity: '', website: '', security_contact: '', details: '' });
  const set = edit('100000000000000000', '5');
  assert.is(set.commission_rate, '0.100000000000000000');
  assert.is(set.min_self_delegation, '5');
});

test('a type neither cosmjs-types nor the chain knows keeps its bytes: {"@type", "value"}', () => {
  assert.equal(anyJson({ typeUrl: '/some.chain.v1.MsgThing', value: new Uint8Array([10, 1, 65]) }), {
    '@type': '/some.chain.v1.MsgThing',
    value: 'CgFB',
  });
});

test('cosmjs-types’ codecs: all loaded, the field tables name real fields', () => {
  const { count } = warmBuiltinTypes();
  assert.ok(count > 1000, `${count} message types`);
  const urls = new Set(builtinTypeUrls());
  for (const url of [
    '/cosmos.feegrant.v1beta1.BasicAllowance',
    '/cosmos.authz.v1beta1.MsgExec',
    '/cosmos.crypto.multisig.LegacyAminoPubKey',
    '/ibc.applications.transfer.v1.MsgTransfer',
    '/cosmos.group.v1.MsgSubmitProposal',
    '/cosmos.nft.v1beta1.MsgSend',
    '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade',
    '/cosmos.evidence.v1beta1.MsgSubmitEvidence',
    '/native.bridge.v1.MsgBurnForBridgeOut',
  ]) {
    assert.ok(urls.has(url), url);
  }
  for (const [table, entries] of Object.entries(FIELD_HINTS)) {
    for (const entry of entries) {
      const at = entry.lastIndexOf('.');
      const [url, field] = [entry.slice(0, at), entry.slice(at + 1)];
      const schema = builtinSchema(url) ?? nestedSchema(url);
      assert.ok(schema, `${table}: ${url} is a known message`);
      assert.ok(
        schema!.fields.some((f) => f.name === field),
        `${table}: ${entry} is one of its fields`,
      );
    }
  }
});

/** A nested type's schema (not an Any's target), found through the message that holds it. */
function nestedSchema(url: string) {
  const holders: Record<string, [string, string]> = {
    '/cosmos.tx.v1beta1.ModeInfo': ['/cosmos.tx.v1beta1.SignerInfo', 'mode_info'],
    '/cosmos.tx.signing.v1beta1.Data': ['/cosmos.tx.signing.v1beta1.SignatureDescriptor', 'data'],
  };
  const holder = holders[url];
  if (!holder) return undefined;
  return builtinSchema(holder[0])
    ?.fields.find((f) => f.name === holder[1])
    ?.message?.();
}

// --- the chain's own types, from descriptors the chain's reflection service answers with ---

type FieldSpec = [name: string, number: number, type: Type, typeName?: string, repeated?: boolean];

/** A FieldDescriptorProto, with raw FieldOptions (gogoproto extensions cosmjs-types' codec cannot write). */
function fieldBytes([name, number, type, typeName, repeated]: FieldSpec, options?: Uint8Array): Uint8Array {
  const w = FieldDescriptorProto.encode(
    FieldDescriptorProto.fromPartial({
      name,
      number,
      type,
      typeName: typeName ?? '',
      label: repeated ? Label.LABEL_REPEATED : Label.LABEL_OPTIONAL,
      jsonName: name,
    }),
  );
  if (options) w.uint32(66).bytes(options);
  return w.finish();
}

const gogo = (customtype?: string, casttype?: string, nullable?: boolean) => {
  const w = BinaryWriter.create();
  if (nullable !== undefined) w.uint32((65001 << 3) | 0).bool(nullable);
  if (customtype) w.uint32((65003 << 3) | 2).string(customtype);
  if (casttype) w.uint32((65007 << 3) | 2).string(casttype);
  return w.finish();
};

function messageBytes(name: string, fields: Uint8Array[], extra: (w: BinaryWriter) => void = () => {}): Uint8Array {
  const w = BinaryWriter.create().uint32(10).string(name);
  for (const f of fields) w.uint32(18).bytes(f);
  extra(w);
  return w.finish();
}

function fileBytes(name: string, pkg: string, messages: Uint8Array[], dependencies: string[] = []): Uint8Array {
  const w = BinaryWriter.create().uint32(10).string(name).uint32(18).string(pkg);
  for (const d of dependencies) w.uint32(26).string(d);
  for (const m of messages) w.uint32(34).bytes(m);
  w.uint32(98).string('proto3');
  return w.finish();
}

const plainFile = (name: string, pkg: string, messages: [string, FieldSpec[]][], dependencies: string[] = []) =>
  fileBytes(
    name,
    pkg,
    messages.map(([m, fields]) =>
      messageBytes(
        m,
        fields.map((f) => fieldBytes(f)),
      ),
    ),
    dependencies,
  );

/** ethermint's key and chain-main's nft message (their protos: `bytes key = 1`; id, denom_id, … = 1 to 7). */
const CHAIN_FILES = [
  plainFile('ethermint/crypto/v1/ethsecp256k1/keys.proto', 'ethermint.crypto.v1.ethsecp256k1', [
    ['PubKey', [['key', 1, Type.TYPE_BYTES]]],
  ]),
  plainFile('chainmain/nft/v1/tx.proto', 'chainmain.nft.v1', [
    [
      'MsgMintNFT',
      ['id', 'denom_id', 'name', 'uri', 'data', 'sender', 'recipient'].map(
        (n, i): FieldSpec => [n, i + 1, Type.TYPE_STRING],
      ),
    ],
  ]),
];

const descriptorsAnswer = (files: Uint8Array[]) =>
  FileDescriptorsResponse.encode({ files: files.map((f) => FileDescriptorProto.decode(f)) }).finish();

/** The answer as a node writes it: the files' own bytes (their gogoproto options kept). */
function rawDescriptorsAnswer(files: Uint8Array[]): Uint8Array {
  const w = BinaryWriter.create();
  for (const f of files) w.uint32(10).bytes(f);
  return w.finish();
}

async function withChainTypes<T>(types: ChainTypes, run: () => T | Promise<T>): Promise<T> {
  useChainTypes(types);
  try {
    return await run();
  } finally {
    useChainTypes(NO_CHAIN_TYPES);
  }
}

test('the chain’s reflection service: its messages print their fields (ethsecp256k1 keys, chain-main’s nft)', async () => {
  const asked: string[] = [];
  const types = await loadChainTypes(async (path, data) => {
    asked.push(path);
    assert.is(data.length, 0);
    return descriptorsAnswer(CHAIN_FILES);
  });
  assert.equal(asked, [FILE_DESCRIPTORS_PATH]);
  assert.equal(types.typeUrls().sort(), ['/chainmain.nft.v1.MsgMintNFT', ETH_KEY]);
  await withChainTypes(types, () => {
    for (const name of [...ETH_KEYED, 'nft-mint']) {
      sameJson(without(txJson(bytesOf(name)), OLDER[name]!), expectedTx(name, true), name);
    }
  });
  // and without them again, the key is its bytes
  assert.ok('value' in (txJson(bytesOf('gov-v1-vote'))!.auth_info.signer_infos[0]!.public_key as object));
});

test('a reflected type holding cosmjs-types’ messages: Aura’s AllowedContractAllowance around a PeriodicAllowance', async () => {
  const source = fixture('tx-by-hash-aura-feegrant-contract') as Json;
  const txRecorded = source.tx;
  const grant = txRecorded.body.messages[0];
  const outer = grant.allowance;
  const inner = outer.allowance.allowance;
  const coins = (cs: Json[]) => cs.map((c) => Coin.fromPartial(c));
  const ts = (text: string) => Timestamp.fromPartial({ seconds: BigInt(Date.parse(text) / 1000) });
  const periodic = PeriodicAllowance.encode(
    PeriodicAllowance.fromPartial({
      basic: { spendLimit: coins(inner.basic.spend_limit), expiration: ts(inner.basic.expiration) },
      period: { seconds: BigInt(Number.parseInt(inner.period, 10)), nanos: 0 },
      periodSpendLimit: coins(inner.period_spend_limit),
      periodCanSpend: coins(inner.period_can_spend),
      periodReset: ts(inner.period_reset),
    }),
  ).finish();
  const allowedMsg = AllowedMsgAllowance.encode({
    allowance: { typeUrl: PeriodicAllowance.typeUrl, value: periodic },
    allowedMessages: outer.allowance.allowed_messages,
  }).finish();
  // AllowedContractAllowance { google.protobuf.Any allowance = 1; repeated string allowed_address = 2; }
  const contractAllowance = BinaryWriter.create();
  contractAllowance
    .uint32(10)
    .bytes(BinaryWriter.create().uint32(10).string(AllowedMsgAllowance.typeUrl).uint32(18).bytes(allowedMsg).finish());
  for (const a of outer.allowed_address) contractAllowance.uint32(18).string(a);
  const message = MsgGrantAllowance.encode({
    granter: grant.granter,
    grantee: grant.grantee,
    allowance: { typeUrl: outer['@type'], value: contractAllowance.finish() },
  }).finish();
  const signer = txRecorded.auth_info.signer_infos[0];
  const raw = TxRaw.encode({
    bodyBytes: TxBody.encode(
      TxBody.fromPartial({ messages: [{ typeUrl: grant['@type'], value: message }], memo: txRecorded.body.memo }),
    ).finish(),
    authInfoBytes: AuthInfo.encode(
      AuthInfo.fromPartial({
        signerInfos: [
          {
            publicKey: {
              typeUrl: signer.public_key['@type'],
              value: Secp256k1PubKey.encode({ key: fromBase64(signer.public_key.key) }).finish(),
            },
            modeInfo: { single: { mode: SignMode.SIGN_MODE_DIRECT } },
            sequence: BigInt(signer.sequence),
          },
        ],
        fee: { amount: coins(txRecorded.auth_info.fee.amount), gasLimit: BigInt(txRecorded.auth_info.fee.gas_limit) },
      }),
    ).finish(),
    signatures: txRecorded.signatures.map(fromBase64),
  }).finish();

  // its file imports google/protobuf/any.proto, which the answer leaves out
  const file = fileBytes(
    'cosmos/feegrant/v1beta1/feegrant_contract.proto',
    'cosmos.feegrant.v1beta1',
    [
      messageBytes('AllowedContractAllowance', [
        fieldBytes(['allowance', 1, Type.TYPE_MESSAGE, '.google.protobuf.Any']),
        fieldBytes(['allowed_address', 2, Type.TYPE_STRING, undefined, true]),
      ]),
    ],
    ['google/protobuf/any.proto'],
  );
  const types = await loadChainTypes(async () => descriptorsAnswer([file]));
  const unknown = txJson(raw)!.body.messages[0] as Json;
  assert.equal(Object.keys(unknown.allowance), ['@type', 'value']);
  await withChainTypes(types, () => {
    sameJson(without(txJson(raw), ['auth_info.tip']), txRecorded, 'aura feegrant');
  });
});

test('reflected fields: LegacyDec, JSON bytes, HexBytes, enums, maps, oneofs, and a message from a file not sent', () => {
  // package test.rates.v1: enum Kind { KIND_UNSPECIFIED = 0; KIND_FIXED = 1; }
  // message MsgSetRate { string rate = 1 [(gogoproto.customtype) = "cosmossdk.io/math.LegacyDec", (gogoproto.nullable) = false];
  //   string cap = 2 [(gogoproto.customtype) = "cosmossdk.io/math.LegacyDec"]; bytes msg = 3 [(gogoproto.casttype) = "RawContractMessage"];
  //   bytes hash = 4 [(gogoproto.casttype) = "github.com/cometbft/cometbft/libs/bytes.HexBytes"]; Kind kind = 5;
  //   map<string, uint64> limits = 6; oneof target { string address = 7; uint64 pool = 8; }
  //   cosmos.base.v1beta1.Coin fee = 9; google.protobuf.Timestamp at = 10; int64 height = 11; }
  const enumBytes = BinaryWriter.create()
    .uint32(10)
    .string('Kind')
    .uint32(18)
    .bytes(BinaryWriter.create().uint32(10).string('KIND_UNSPECIFIED').uint32(16).int32(0).finish())
    .uint32(18)
    .bytes(BinaryWriter.create().uint32(10).string('KIND_FIXED').uint32(16).int32(1).finish())
    .finish();
  const entry = BinaryWriter.create()
    .uint32(10)
    .string('LimitsEntry')
    .uint32(18)
    .bytes(fieldBytes(['key', 1, Type.TYPE_STRING]))
    .uint32(18)
    .bytes(fieldBytes(['value', 2, Type.TYPE_UINT64]))
    .uint32(58)
    .bytes(BinaryWriter.create().uint32(56).bool(true).finish())
    .finish();
  const oneofMember = (spec: FieldSpec) => {
    const w = FieldDescriptorProto.encode(
      FieldDescriptorProto.fromPartial({ name: spec[0], number: spec[1], type: spec[2], label: Label.LABEL_OPTIONAL }),
    );
    return w.uint32(72).int32(0).finish();
  };
  const message = messageBytes(
    'MsgSetRate',
    [
      fieldBytes(['rate', 1, Type.TYPE_STRING], gogo('cosmossdk.io/math.LegacyDec', undefined, false)),
      fieldBytes(['cap', 2, Type.TYPE_STRING], gogo('cosmossdk.io/math.LegacyDec')),
      fieldBytes(['msg', 3, Type.TYPE_BYTES], gogo(undefined, 'RawContractMessage')),
      fieldBytes(['hash', 4, Type.TYPE_BYTES], gogo(undefined, 'github.com/cometbft/cometbft/libs/bytes.HexBytes')),
      fieldBytes(['kind', 5, Type.TYPE_ENUM, '.test.rates.v1.Kind']),
      fieldBytes(['limits', 6, Type.TYPE_MESSAGE, '.test.rates.v1.MsgSetRate.LimitsEntry', true]),
      oneofMember(['address', 7, Type.TYPE_STRING]),
      oneofMember(['pool', 8, Type.TYPE_UINT64]),
      fieldBytes(['fee', 9, Type.TYPE_MESSAGE, '.cosmos.base.v1beta1.Coin']),
      fieldBytes(['at', 10, Type.TYPE_MESSAGE, '.google.protobuf.Timestamp']),
      fieldBytes(['height', 11, Type.TYPE_INT64]),
    ],
    (w) => {
      w.uint32(26).bytes(entry);
      w.uint32(66).bytes(BinaryWriter.create().uint32(10).string('target').finish());
    },
  );
  const file = BinaryWriter.create()
    .uint32(10)
    .string('test/rates/v1/tx.proto')
    .uint32(18)
    .string('test.rates.v1')
    .uint32(34)
    .bytes(message)
    .uint32(42)
    .bytes(enumBytes)
    .uint32(98)
    .string('proto3')
    .finish();
  const types = chainTypesOf([file]);
  const schema = types.schema('/test.rates.v1.MsgSetRate')!;
  assert.ok(schema);

  const value = BinaryWriter.create()
    .uint32(10)
    .string('50000000000000000')
    .uint32(26)
    .bytes(new TextEncoder().encode('{"swap":{"min":"1"}}'))
    .uint32(34)
    .bytes(fromHex('0a0b'))
    .uint32(40)
    .int32(1)
    .uint32(50)
    .bytes(BinaryWriter.create().uint32(10).string('b').uint32(16).uint64(2n).finish())
    .uint32(50)
    .bytes(BinaryWriter.create().uint32(10).string('a').uint32(16).uint64(1n).finish())
    .uint32(64)
    .uint64(9n)
    .uint32(74)
    .bytes(Coin.encode({ denom: 'uatom', amount: '12' }).finish())
    .uint32(82)
    .bytes(Timestamp.encode({ seconds: 1_700_000_000n, nanos: 5_000_000 }).finish())
    .finish();
  assert.equal(schemaJson(schema, schema.decode(value)), {
    rate: '0.050000000000000000',
    cap: null,
    msg: { swap: { min: '1' } },
    hash: '0A0B',
    kind: 'KIND_FIXED',
    limits: { a: '1', b: '2' },
    pool: '9',
    fee: { denom: 'uatom', amount: '12' },
    at: '2023-11-14T22:13:20.005Z',
    height: '0',
  });
  const empty = schemaJson(schema, schema.decode(new Uint8Array()));
  assert.equal(empty, {
    rate: '0.000000000000000000',
    cap: null,
    msg: null,
    hash: null,
    kind: 'KIND_UNSPECIFIED',
    limits: {},
    fee: null,
    at: null,
    height: '0',
  });
});

test('the bridge module’s descriptor (its Coin from a file not sent) prints as the built-in codec does', () => {
  const file = fileBytes(
    'native/bridge/v1/tx.proto',
    'native.bridge.v1',
    [
      messageBytes('MsgBurnForBridgeOut', [
        fieldBytes(['sender', 1, Type.TYPE_STRING]),
        fieldBytes(['amount', 2, Type.TYPE_MESSAGE, '.cosmos.base.v1beta1.Coin']),
        fieldBytes(['destination_chain', 3, Type.TYPE_STRING]),
        fieldBytes(['destination_address', 4, Type.TYPE_STRING]),
      ]),
    ],
    ['cosmos/base/v1beta1/coin.proto'],
  );
  const schema = chainTypesOf([file]).schema(MsgBurnForBridgeOut.typeUrl)!;
  const value = MsgBurnForBridgeOut.encode({
    sender: 'native1s',
    amount: { denom: 'unative', amount: '5' },
    destinationChain: 'ethereum',
    destinationAddress: '0xabc',
  }).finish();
  const expected = {
    sender: 'native1s',
    amount: { denom: 'unative', amount: '5' },
    destination_chain: 'ethereum',
    destination_address: '0xabc',
  };
  assert.equal(schemaJson(schema, schema.decode(value)), expected);
  assert.equal(anyJson({ typeUrl: MsgBurnForBridgeOut.typeUrl, value }), {
    '@type': MsgBurnForBridgeOut.typeUrl,
    ...expected,
  });
});

test('a node without the reflection service gives no types; one that cannot be reached is asked again', async () => {
  const refused = await loadChainTypes(async () => {
    throw new Error('Query failed with (6): rpc error: code = Unknown desc = unknown query path: unknown request');
  });
  assert.equal(refused.typeUrls(), []);
  const unreachable = await loadChainTypes(async () => {
    throw new Error('fetch failed');
  }).then(
    () => 'loaded',
    (error: Error) => error.message,
  );
  assert.is(unreachable, 'fetch failed');

  let calls = 0;
  const stop = startChainTypes(
    async () => {
      calls++;
      if (calls === 1) throw new Error('connect ECONNREFUSED 127.0.0.1:26657');
      return rawDescriptorsAnswer(CHAIN_FILES);
    },
    silentLogger,
    20,
  );
  try {
    const deadline = Date.now() + 5000;
    while (!chainTypes().schema(ETH_KEY) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.is(calls, 2);
    assert.ok(chainTypes().schema(ETH_KEY), 'loaded on the second try');
  } finally {
    stop();
    useChainTypes(NO_CHAIN_TYPES);
  }
});

// --- tx_response.logs ---

function recordOf(response: Json, bytes: Uint8Array): TxRecord {
  return {
    hash: response.txhash,
    height: Number(response.height),
    index: 0,
    time: new Date(response.timestamp),
    code: response.code,
    codespace: response.codespace,
    log: response.raw_log,
    data: response.data,
    gasWanted: response.gas_wanted,
    gasUsed: response.gas_used,
    bytes,
    events: response.events ?? [],
  };
}

test('logs: a pre-0.50 log is parsed as the node parsed it (cosmoshub v0.45)', () => {
  const node = fixture('tx-by-hash-cosmoshub-sdk045') as Json;
  const logs = logsOf(node.tx_response.raw_log);
  assert.ok(logs.length > 0);
  sameJson(logs, node.tx_response.logs, 'logs');
});

/**
 * The recordings whose `logs` are the node's. In the others the repository rebuilt `logs`
 * from the block's events (base64 keys, `index`), which no node prints there.
 */
const LOGS_AS_RECORDED = [
  'authz-exec-send',
  'authz-grant-stake',
  'authz-grant-send',
  'feegrant-basic-allowance',
  'gov-v1-vote',
  'gov-v1-vote-weighted',
  'gov-v1-software-upgrade',
];

test('logs: each recorded tx_response is ours from the same bytes and result', async () => {
  const types = await loadChainTypes(async () => descriptorsAnswer(CHAIN_FILES));
  await withChainTypes(types, () => {
    for (const name of LOGS_AS_RECORDED) {
      const response = recorded(name).tx_response;
      assert.ok(response.logs.length > 0, name);
      const ours = txResponseJson(recordOf(response, bytesOf(name)), txJson(bytesOf(name))) as Json;
      if (!('events' in response)) delete ours.events;
      ours.tx = without(ours.tx, OLDER[name]!);
      sameJson(ours, lowerAddresses(response), name);
    }
  });
  const aura = fixture('tx-by-hash-aura-feegrant-contract') as Json;
  sameJson(logsOf(aura.tx_response.raw_log), aura.tx_response.logs, 'aura logs');
});

test('a tx_response whose events are kept as text is the same JSON, byte for byte, as with its events as objects', () => {
  let events = 0;
  for (const name of LOGS_AS_RECORDED) {
    const recordedAs = recordOf(recorded(name).tx_response, bytesOf(name));
    // as the index keeps them: packed, and served again
    const stored = packEvents(recordedAs.events as RestEvent[]);
    const withObjects = { ...recordedAs, events: unpackEvents(stored) };
    const asText = { ...recordedAs, events: unpackEventsJson(stored) };
    events += withObjects.events.length;
    const tx = txJson(bytesOf(name));
    assert.is(txResponseText(asText, tx), JSON.stringify(txResponseJson(withObjects, tx)), name);
    assert.is(txResponseText(withObjects, tx), JSON.stringify(txResponseJson(withObjects, tx)), name);
    assert.equal(txResponseJson(asText, tx), txResponseJson(withObjects, tx), `${name}: txResponseJson reads the text`);
  }
  assert.ok(events > 20, `${events} events`);
  const none = { ...recordOf(recorded('failed-undelegate').tx_response, bytesOf('failed-undelegate')), events: '[]' };
  assert.is(JSON.parse(txResponseText(none, null)).events.length, 0);
});

test('events on a Tendermint 0.34 chain print as its SDK’s gateway printed them: keys and values in base64 (cosmoshub v0.45, aura)', () => {
  let attributes = 0;
  for (const name of ['tx-by-hash-cosmoshub-sdk045', 'tx-by-hash-aura-feegrant-contract']) {
    const response = (fixture(name) as Json).tx_response;
    const wire = response.events as { attributes: { key: string }[] }[];
    attributes += wire.flatMap((e) => e.attributes).length;
    // as the indexer keeps them: read from the 0.34 wire form as text, packed
    const stored = packEvents(readEvents(wire as WireEvent[], '0.34'));
    const record = recordOf(response, new Uint8Array());
    const asText = { ...record, events: unpackEventsJson(stored) };
    assert.equal(JSON.parse(txResponseText(asText, null, 'base64')).events, wire, name);
    assert.equal(txResponseJson({ ...record, events: unpackEvents(stored) }, null, 'base64').events, wire, name);
    assert.is.not(JSON.parse(txResponseText(asText, null)).events[0].attributes[0].key, wire[0]!.attributes[0]!.key);
  }
  assert.ok(attributes > 30, `${attributes} attributes`);
  // an empty key or value is bytes of none: null, as the gateway prints a nil slice
  const empty = { type: 't', attributes: [{ key: 'k', value: '', index: true }] };
  assert.equal(eventsInBase64([empty]), [{ type: 't', attributes: [{ key: 'aw==', value: null, index: true }] }]);
});

test('logs: a failed tx’s log is its error text, and its logs are []', () => {
  const response = recorded('failed-undelegate').tx_response;
  assert.ok(response.code > 0);
  assert.match(response.raw_log, /^failed to execute message/);
  const ours = txResponseJson(recordOf(response, bytesOf('failed-undelegate')), null);
  assert.equal(ours.logs, []);
  assert.is(ours.raw_log, response.raw_log);
});

test('logs: [] for an empty log (SDK 0.50), "[]", an error text, and JSON that is not ABCIMessageLogs', () => {
  for (const log of ['', '[]', 'out of gas in location: WritePerByte; gasWanted: 1, gasUsed: 2', '{"a":1}', '[1]']) {
    assert.equal(logsOf(log), [], log);
  }
  assert.equal(logsOf('[{"msg_index":"0","events":[]}]'), [], 'a msg_index that is not a number');
  assert.equal(logsOf('[{"events":[{"type":"message","attributes":[{"key":"action"}]}]},{"msg_index":1,"log":"x"}]'), [
    { msg_index: 0, log: '', events: [{ type: 'message', attributes: [{ key: 'action', value: '' }] }] },
    { msg_index: 1, log: 'x', events: [] },
  ]);
});

// --- block evidence ---

const RPC_BLOCK = fixture('rpc-block-evidence-cryptoorg') as Json;
const b64hex = (hex: string) => toBase64(fromHex(hex));

test('evidence: a DuplicateVoteEvidence of a real block (CometBFT RPC) as the gateway prints it', () => {
  const [item] = RPC_BLOCK.evidence.evidence;
  const json = restEvidence(item) as Json;
  const v = item.value;
  const voteOf = (raw: Json, timestamp: string) => ({
    type: 'SIGNED_MSG_TYPE_PREVOTE',
    height: raw.height,
    round: 0,
    block_id: { hash: b64hex(raw.block_id.hash), part_set_header: { total: 1, hash: b64hex(raw.block_id.parts.hash) } },
    timestamp,
    validator_address: b64hex(raw.validator_address),
    validator_index: 13,
    signature: raw.signature,
    extension: null,
    extension_signature: null,
  });
  const expected = {
    duplicate_vote_evidence: {
      vote_a: voteOf(v.vote_a, '2020-12-30T17:15:43.389531800Z'),
      vote_b: voteOf(v.vote_b, '2020-12-30T17:15:42.854658231Z'),
      total_voting_power: '12062530992',
      validator_power: '100827500',
      timestamp: '2020-12-30T17:15:37.438260677Z',
    },
  };
  sameJson(json, expected, 'evidence');
  // the same fields, in the same order, as DuplicateVoteEvidence printed by the SDK's codec (CometBFT 0.38)
  assert.equal(keyOrder(json.duplicate_vote_evidence), keyOrder(fixture('evidence-duplicate-vote-ics')));
});

function cometBlock(evidence: unknown[]): CometBlock {
  const h = RPC_BLOCK.header;
  const id = (hash: string, parts: string) => ({ hash: fromHex(hash), parts: { total: 1, hash: fromHex(parts) } });
  return {
    blockId: id(
      '2A45DE4ED482302CAF1F8F66B92F27F50E898EA159AA6EF3DAE065F8AFD08767',
      '5195622230FDE702BB6EAC095EC860F98FC257473678BB563D7DB8EF3B21B3C5',
    ),
    block: {
      header: {
        version: { block: 11, app: 0 },
        chainId: h.chain_id,
        height: Number(h.height),
        // a cosmjs date: milliseconds, and the nanoseconds beyond them
        time: Object.assign(new Date('2020-12-30T17:15:53.674Z'), { nanoseconds: 194575 }),
        lastBlockId: id(h.last_block_id.hash, h.last_block_id.parts.hash),
        lastCommitHash: fromHex(h.last_commit_hash),
        dataHash: fromHex(h.data_hash),
        validatorsHash: fromHex(h.validators_hash),
        nextValidatorsHash: fromHex(h.next_validators_hash),
        consensusHash: fromHex(h.consensus_hash),
        appHash: fromHex(h.app_hash),
        lastResultsHash: fromHex(h.last_results_hash),
        evidenceHash: fromHex(h.evidence_hash),
        proposerAddress: fromHex(h.proposer_address),
      },
      lastCommit: null,
      txs: [],
      evidence,
    },
  } as unknown as CometBlock;
}

/** What jsonb gives back: the same values, keys in another order. */
function reorder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reorder);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reorder(x)]),
    );
  return v;
}

test('evidence: stored with the block and served in the gateway’s order; a block without keeps none', () => {
  const parts = restBlock(cometBlock(RPC_BLOCK.evidence.evidence)) as Json;
  assert.is(parts.evidence.length, 1);
  const served = cometBlockJson(reorder(JSON.parse(JSON.stringify(parts))) as Json, []).block.evidence;
  sameJson(served, { evidence: [restEvidence(RPC_BLOCK.evidence.evidence[0])] }, 'served evidence');
  const none = restBlock(cometBlock([])) as Json;
  assert.not.ok('evidence' in none);
  assert.equal(cometBlockJson(none, []).block.evidence, { evidence: [] });
});

test("a block's answer as bytes is blockJson printed, byte for byte: no txs, one, many; with evidence; any chain id", () => {
  const withEvidence = restBlock(cometBlock(RPC_BLOCK.evidence.evidence));
  const printed = (parts: BlockParts, txs: Uint8Array[]) =>
    Buffer.from(JSON.stringify(blockJson(parts, txs, 'crovalcons')));
  for (const count of [0, 1, 3, 1000]) {
    const txs = Array.from({ length: count }, (_, i) =>
      Uint8Array.from({ length: 1 + (i % 700) }, (_, j) => (i * 31 + j) % 256),
    );
    for (const parts of [withEvidence, restBlock(cometBlock([]))]) {
      const bytes = blockJsonBytes(parts, txs, 'crovalcons');
      assert.ok(bytes.equals(printed(parts, txs)), `${count} txs`);
      assert.is(bytes.buffer.byteLength, bytes.length, 'bytes of its own');
    }
  }
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary' }),
      fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 20 }),
      (chainId, txs) => {
        const parts = { ...withEvidence, header: { ...withEvidence.header, chain_id: chainId } };
        assert.ok(blockJsonBytes(parts, txs, 'crovalcons').equals(printed(parts, txs)));
      },
    ),
    { numRuns: 300 },
  );
});

test('evidence: a LightClientAttackEvidence (its CometBFT RPC form) as tendermint.types.Evidence prints it', () => {
  const h = RPC_BLOCK.header;
  const key = 'K6qw+gcFNPxONvd3yRkIXL8mvQ3AYkfmF+Yw4JkQyPk=';
  const rpcValidator = {
    address: h.proposer_address,
    pub_key: { type: 'tendermint/PubKeyEd25519', value: key },
    voting_power: '10',
    proposer_priority: '-5',
  };
  const item = {
    type: 'tendermint/LightClientAttackEvidence',
    value: {
      ConflictingBlock: {
        signed_header: { header: h, commit: RPC_BLOCK.last_commit },
        validator_set: { validators: [rpcValidator, { ...rpcValidator, voting_power: '5' }], proposer: rpcValidator },
      },
      CommonHeight: '116400',
      ByzantineValidators: [rpcValidator],
      TotalVotingPower: '15',
      Timestamp: '2020-12-30T17:15:37.4Z',
    },
  };
  const json = restEvidence(item) as Json;
  const validator = {
    address: b64hex(h.proposer_address),
    pub_key: { ed25519: key },
    voting_power: '10',
    proposer_priority: '-5',
  };
  const lca = json.light_client_attack_evidence;
  assert.equal(Object.keys(lca), [
    'conflicting_block',
    'common_height',
    'byzantine_validators',
    'total_voting_power',
    'timestamp',
  ]);
  assert.equal(lca.conflicting_block.signed_header.header, restBlock(cometBlock([])).header);
  const commit = lca.conflicting_block.signed_header.commit;
  assert.equal(commit.signatures[0], {
    block_id_flag: 'BLOCK_ID_FLAG_COMMIT',
    validator_address: b64hex(RPC_BLOCK.last_commit.signatures[0].validator_address),
    timestamp: '2020-12-30T17:15:53.674194575Z',
    signature: RPC_BLOCK.last_commit.signatures[0].signature,
  });
  assert.equal(lca.conflicting_block.validator_set, {
    validators: [validator, { ...validator, voting_power: '5' }],
    proposer: validator,
    total_voting_power: '15',
  });
  assert.equal(lca.byzantine_validators, [validator]);
  assert.is(lca.common_height, '116400');
  assert.is(lca.timestamp, '2020-12-30T17:15:37.400Z');
  sameJson(
    cometBlockJson({ ...restBlock(cometBlock([item])), evidence: [reorder(json)] } as Json, []).block.evidence,
    { evidence: [json] },
    'served',
  );
});

test.run();
