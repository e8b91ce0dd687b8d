// The protobuf message types the Chain API knows without asking the chain: every codec
// cosmjs-types generates (Cosmos SDK, IBC, CosmWasm, CometBFT) and the chain's bridge
// message, each described as a MessageSchema (proto field names, enums, nested messages,
// oneofs, LegacyDec) that the gateway JSON printer walks (src/api/chain/proto-json.ts).
// docs/chain-api.md, "How messages are printed", says what is learned and how.
//
// cosmjs-types has no descriptors, so each codec's schema is learned from the codec itself:
// - field names: the keys of its empty message, camelCase turned back into the proto's
//   snake_case;
// - nested messages: encoding a message whose field holds a marker object, with every
//   codec's `encode` briefly wrapped, names the codec the marker is handed to;
// - enums: `toJSON` turns an enum field's number into a name where a plain integer stays a
//   number, and names any value (0 included) the same way;
// - what no codec shows (which message fields are oneof members, which strings are
//   LegacyDec, which bytes print as JSON or hex): the tables below, taken from the
//   gogoproto options in the SDK's, IBC's and wasmd's proto files.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { MsgBurnForBridgeOut, MsgBurnForBridgeOutResponse } from './bridge-msg.ts';

/** How a field's value is printed. */
export type FieldKind = 'scalar' | 'enum' | 'message' | 'any' | 'timestamp' | 'duration' | 'map';

export interface FieldSchema {
  /** The property of the decoded object that holds the field. */
  key: string;
  /** The field's name in the proto (what the gateway prints). */
  name: string;
  kind: FieldKind;
  repeated: boolean;
  /** A oneof member: left out of the JSON when unset (the gateway prints only the member that is set). */
  omitWhenUnset: boolean;
  /** An enum value's name, or undefined for a number the enum does not name (printed as the number). */
  enumName?: (value: number) => string | undefined;
  /** The nested message (kind `message`). */
  message?: () => MessageSchema | undefined;
  /** A map's values (kind `map`; printed as a JSON object by key), when known. */
  mapValue?: () => FieldSchema;
  /** Decodes the field's value when it arrives as bytes (a nested message its parent could not resolve). */
  decode?: (bytes: Uint8Array) => unknown;
  /** With `decode`: empty bytes are an unset message (printed as null), unless the field is non-nullable. */
  emptyIsUnset?: boolean;
  /**
   * `dec`: a LegacyDec (its 10^-18 atomics on the wire, printed with 18 decimals); `json`:
   * wasmd's RawContractMessage (JSON in bytes, printed as the JSON); `text`: a customtype
   * integer held in bytes, printed as its text; `hex`: CometBFT's HexBytes, in upper-case hex.
   */
  format?: 'dec' | 'json' | 'text' | 'hex';
  /** A nullable customtype (a Go pointer): empty on the wire is `null`. */
  nullWhenEmpty?: boolean;
}

export interface MessageSchema {
  typeUrl: string;
  fields: readonly FieldSchema[];
  decode(bytes: Uint8Array): Record<string, unknown>;
}

/** A cosmjs-types codec (telescope output), or one written in its shape. */
interface Codec {
  typeUrl: string;
  encode(message: unknown, writer?: unknown): unknown;
  decode(input: Uint8Array): Record<string, unknown>;
  toJSON?(message: unknown): unknown;
}

const isCodec = (v: unknown): v is Codec =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Codec).typeUrl === 'string' &&
  (v as Codec).typeUrl.startsWith('/') &&
  typeof (v as Codec).encode === 'function' &&
  typeof (v as Codec).decode === 'function';

const ANY = '/google.protobuf.Any';
const TIMESTAMP = '/google.protobuf.Timestamp';
const DURATION = '/google.protobuf.Duration';

/**
 * Message fields that are oneof members, by type URL as cosmjs-types spells it (a nested
 * type keeps only its own name: `ModeInfo.Single` is `/cosmos.tx.v1beta1.Single`).
 * Scalar oneof members (tendermint.crypto.PublicKey's ed25519) need no entry: a scalar
 * that is unset in an empty message can only be one.
 */
const ONEOF_MESSAGE_FIELDS = new Set([
  '/cosmos.staking.v1beta1.StakeAuthorization.allow_list',
  '/cosmos.staking.v1beta1.StakeAuthorization.deny_list',
  '/cosmos.tx.v1beta1.ModeInfo.single',
  '/cosmos.tx.v1beta1.ModeInfo.multi',
  '/cosmos.tx.signing.v1beta1.Data.single',
  '/cosmos.tx.signing.v1beta1.Data.multi',
  '/tendermint.types.Evidence.duplicate_vote_evidence',
  '/tendermint.types.Evidence.light_client_attack_evidence',
  '/cosmos.ics23.v1.CommitmentProof.exist',
  '/cosmos.ics23.v1.CommitmentProof.nonexist',
  '/cosmos.ics23.v1.CommitmentProof.batch',
  '/cosmos.ics23.v1.CommitmentProof.compressed',
  '/cosmos.ics23.v1.BatchEntry.exist',
  '/cosmos.ics23.v1.BatchEntry.nonexist',
  '/cosmos.ics23.v1.CompressedBatchEntry.exist',
  '/cosmos.ics23.v1.CompressedBatchEntry.nonexist',
  '/cosmos.crypto.keyring.v1.Record.local',
  '/cosmos.crypto.keyring.v1.Record.ledger',
  '/cosmos.crypto.keyring.v1.Record.multi',
  '/cosmos.crypto.keyring.v1.Record.offline',
  '/cosmos.store.snapshots.v1.SnapshotItem.store',
  '/cosmos.store.snapshots.v1.SnapshotItem.iavl',
  '/cosmos.store.snapshots.v1.SnapshotItem.extension',
  '/cosmos.store.snapshots.v1.SnapshotItem.extension_payload',
]);

/** `(gogoproto.customtype) = "…LegacyDec"` fields (string or bytes on the wire). */
const LEGACY_DEC_FIELDS = new Set([
  '/cosmos.base.v1beta1.DecCoin.amount',
  '/cosmos.base.v1beta1.DecProto.dec',
  '/cosmos.staking.v1beta1.CommissionRates.rate',
  '/cosmos.staking.v1beta1.CommissionRates.max_rate',
  '/cosmos.staking.v1beta1.CommissionRates.max_change_rate',
  '/cosmos.staking.v1beta1.Validator.delegator_shares',
  '/cosmos.staking.v1beta1.Delegation.shares',
  '/cosmos.staking.v1beta1.RedelegationEntry.shares_dst',
  '/cosmos.staking.v1beta1.Params.min_commission_rate',
  '/cosmos.staking.v1beta1.MsgEditValidator.commission_rate',
  '/cosmos.gov.v1beta1.WeightedVoteOption.weight',
  '/cosmos.gov.v1beta1.TallyParams.quorum',
  '/cosmos.gov.v1beta1.TallyParams.threshold',
  '/cosmos.gov.v1beta1.TallyParams.veto_threshold',
  '/cosmos.distribution.v1beta1.Params.community_tax',
  '/cosmos.distribution.v1beta1.Params.base_proposer_reward',
  '/cosmos.distribution.v1beta1.Params.bonus_proposer_reward',
  '/cosmos.distribution.v1beta1.ValidatorSlashEvent.fraction',
  '/cosmos.distribution.v1beta1.DelegatorStartingInfo.stake',
  '/cosmos.mint.v1beta1.Minter.inflation',
  '/cosmos.mint.v1beta1.Minter.annual_provisions',
  '/cosmos.mint.v1beta1.Params.inflation_rate_change',
  '/cosmos.mint.v1beta1.Params.inflation_max',
  '/cosmos.mint.v1beta1.Params.inflation_min',
  '/cosmos.mint.v1beta1.Params.goal_bonded',
  '/cosmos.mint.v1beta1.QueryInflationResponse.inflation',
  '/cosmos.mint.v1beta1.QueryAnnualProvisionsResponse.annual_provisions',
  '/cosmos.slashing.v1beta1.Params.min_signed_per_window',
  '/cosmos.slashing.v1beta1.Params.slash_fraction_double_sign',
  '/cosmos.slashing.v1beta1.Params.slash_fraction_downtime',
  '/cosmos.protocolpool.v1.ContinuousFund.percentage',
  '/cosmos.protocolpool.v1.MsgCreateContinuousFund.percentage',
]);

/** Nullable customtypes (Go pointers): an empty value is `null`. */
const NULLABLE_CUSTOM_FIELDS = new Set([
  '/cosmos.staking.v1beta1.MsgEditValidator.commission_rate',
  '/cosmos.staking.v1beta1.MsgEditValidator.min_self_delegation',
]);

/** wasmd's RawContractMessage fields: the contract's JSON message, printed as JSON. */
const RAW_JSON_FIELDS = new Set([
  '/cosmwasm.wasm.v1.MsgExecuteContract.msg',
  '/cosmwasm.wasm.v1.MsgInstantiateContract.msg',
  '/cosmwasm.wasm.v1.MsgInstantiateContract2.msg',
  '/cosmwasm.wasm.v1.MsgMigrateContract.msg',
  '/cosmwasm.wasm.v1.MsgSudoContract.msg',
  '/cosmwasm.wasm.v1.MsgStoreAndInstantiateContract.msg',
  '/cosmwasm.wasm.v1.MsgStoreAndMigrateContract.msg',
  '/cosmwasm.wasm.v1.ExecuteContractProposal.msg',
  '/cosmwasm.wasm.v1.InstantiateContractProposal.msg',
  '/cosmwasm.wasm.v1.InstantiateContract2Proposal.msg',
  '/cosmwasm.wasm.v1.MigrateContractProposal.msg',
  '/cosmwasm.wasm.v1.SudoContractProposal.msg',
  '/cosmwasm.wasm.v1.StoreAndInstantiateContractProposal.msg',
  '/cosmwasm.wasm.v1.AcceptedMessagesFilter.messages',
]);

/** `(gogoproto.casttype)` CometBFT HexBytes: printed in upper-case hex (its MarshalJSON), not base64. */
const HEX_BYTES_FIELDS = new Set([
  '/ibc.lightclients.tendermint.v1.ConsensusState.next_validators_hash',
  '/cosmos.evidence.v1beta1.QueryEvidenceRequest.evidence_hash',
  '/cosmwasm.wasm.v1.Model.key',
]);

/** The tables above, for the test that checks each entry names a field of a known message. */
export const FIELD_HINTS = {
  oneofMessages: ONEOF_MESSAGE_FIELDS,
  legacyDec: LEGACY_DEC_FIELDS,
  nullableCustom: NULLABLE_CUSTOM_FIELDS,
  rawJson: RAW_JSON_FIELDS,
  hexBytes: HEX_BYTES_FIELDS,
};

interface Loaded {
  /** The codecs an Any can name: top-level messages (a nested type's type URL is not its full name). */
  byTypeUrl: Map<string, Codec>;
  /** Every codec, nested types included (those whose encode is traced). */
  all: Codec[];
  ms: number;
}

let loaded: Loaded | undefined;
const require = createRequire(import.meta.url);

function moduleFiles(dir: string, top = true): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return moduleFiles(full, false);
    // the package's root files are its helpers (binary, helpers, varint…), not messages
    return !top && e.name.endsWith('.js') ? [full] : [];
  });
}

/** Loads every cosmjs-types module once (about 0.2 s). */
function load(): Loaded {
  if (loaded) return loaded;
  const start = performance.now();
  const root = path.dirname(require.resolve('cosmjs-types/binary'));
  const byTypeUrl = new Map<string, Codec>();
  const all: Codec[] = [];
  const add = (name: string, codec: Codec) => {
    all.push(codec);
    // telescope names a nested type Parent_Child; its typeUrl drops the parent
    if (!name.includes('_') && !byTypeUrl.has(codec.typeUrl)) byTypeUrl.set(codec.typeUrl, codec);
  };
  for (const file of moduleFiles(root)) {
    for (const [name, value] of Object.entries(require(file) as Record<string, unknown>)) {
      if (isCodec(value)) add(name, value);
    }
  }
  add('MsgBurnForBridgeOut', MsgBurnForBridgeOut as unknown as Codec);
  add('MsgBurnForBridgeOutResponse', MsgBurnForBridgeOutResponse as unknown as Codec);
  loaded = { byTypeUrl, all, ms: performance.now() - start };
  return loaded;
}

/** Loads the codecs now (the Chain API does it at start, so no request waits for it). */
export function warmBuiltinTypes(): { count: number; ms: number } {
  const { byTypeUrl, ms } = load();
  return { count: byTypeUrl.size, ms };
}

/** The type URLs of the messages known here. */
export const builtinTypeUrls = (): string[] => [...load().byTypeUrl.keys()];

// --- learning a codec's schema ---

const MARKER = Object.freeze({ marker: true });

class Handed {
  constructor(readonly codec: Codec) {}
}

/** What an enum's `toJSON` returns (bytes and 64-bit integers also become strings, never of this form). */
const ENUM_NAME = /^[A-Z][A-Z0-9_]*$/;

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

const schemas = new Map<Codec, MessageSchema>();

/** The codec that encodes `key` of `codec`'s messages, if the field is a message (all encodes traced). */
function nestedCodec(codec: Codec, empty: Record<string, unknown>, key: string, probe: unknown): Codec | undefined {
  try {
    codec.encode({ ...empty, [key]: probe });
  } catch (e) {
    if (e instanceof Handed) return e.codec;
  }
  return undefined;
}

/** `toJSON`'s output for the field set to `value` (an enum's name, or a number for a plain integer). */
function jsonOf(codec: Codec, empty: Record<string, unknown>, key: string, value: unknown): unknown {
  return attempt(() => (codec.toJSON?.({ ...empty, [key]: value }) as Record<string, unknown> | undefined)?.[key]);
}

function enumNamer(codec: Codec, empty: Record<string, unknown>, key: string, repeated: boolean) {
  const names = new Map<number, string | undefined>();
  return (value: number) => {
    if (!names.has(value)) {
      const json = jsonOf(codec, empty, key, repeated ? [value] : value);
      const name = repeated ? (json as unknown[] | undefined)?.[0] : json;
      names.set(value, typeof name === 'string' && name !== 'UNRECOGNIZED' ? name : undefined);
    }
    return names.get(value);
  };
}

function fieldOf(codec: Codec, empty: Record<string, unknown>, key: string, pending: Codec[]): FieldSchema {
  const name = snake(key);
  const id = `${codec.typeUrl}.${name}`;
  const value = empty[key];
  const repeated = Array.isArray(value);
  const field: FieldSchema = { key, name, kind: 'scalar', repeated, omitWhenUnset: false };
  if (LEGACY_DEC_FIELDS.has(id)) field.format = 'dec';
  if (RAW_JSON_FIELDS.has(id)) field.format = 'json';
  if (HEX_BYTES_FIELDS.has(id)) field.format = 'hex';
  if (NULLABLE_CUSTOM_FIELDS.has(id)) field.nullWhenEmpty = true;
  const mayNest = repeated || value === undefined || isPlainObject(value);
  const nested = mayNest ? nestedCodec(codec, empty, key, repeated ? [MARKER] : MARKER) : undefined;
  if (nested) {
    if (nested.typeUrl === ANY) field.kind = 'any';
    else if (nested.typeUrl === TIMESTAMP) field.kind = 'timestamp';
    else if (nested.typeUrl === DURATION) field.kind = 'duration';
    else {
      field.kind = 'message';
      field.message = () => schemaOfCodec(nested);
      if (!schemas.has(nested)) pending.push(nested);
    }
    field.omitWhenUnset = value === undefined && ONEOF_MESSAGE_FIELDS.has(id);
    return field;
  }
  if (isPlainObject(value)) {
    field.kind = 'map';
    return field;
  }
  // a scalar left unset in the empty message is a oneof member
  if (value === undefined) field.omitWhenUnset = true;
  const probe = repeated ? [0] : 0;
  if (typeof value === 'number' || repeated || value === undefined) {
    const json = jsonOf(codec, empty, key, probe);
    const named = repeated ? (json as unknown[] | undefined)?.[0] : json;
    if (typeof named === 'string' && ENUM_NAME.test(named)) {
      field.kind = 'enum';
      field.enumName = enumNamer(codec, empty, key, repeated);
    }
  }
  return field;
}

function learn(codec: Codec): MessageSchema {
  const empty = codec.decode(new Uint8Array());
  const pending: Codec[] = [];
  const schema: MessageSchema = {
    typeUrl: codec.typeUrl,
    fields: Object.keys(empty).map((key) => fieldOf(codec, empty, key, pending)),
    decode: (bytes) => codec.decode(bytes),
  };
  schemas.set(codec, schema);
  for (const next of pending) if (!schemas.has(next)) learn(next);
  return schema;
}

/** The schema of a codec, learned on first use with every codec's encode traced meanwhile. */
function schemaOfCodec(codec: Codec): MessageSchema {
  const known = schemas.get(codec);
  if (known) return known;
  const { all } = load();
  const originals = all.map((c) => c.encode);
  all.forEach((c, i) => {
    const original = originals[i]!;
    c.encode = function traced(this: unknown, message: unknown, writer?: unknown) {
      if (message === MARKER) throw new Handed(c);
      return original.call(this, message, writer);
    };
  });
  try {
    return learn(codec);
  } finally {
    all.forEach((c, i) => {
      c.encode = originals[i]!;
    });
  }
}

/** The schema of the message with this type URL, when cosmjs-types (or the bridge module) has its codec. */
export function builtinSchema(typeUrl: string): MessageSchema | undefined {
  const codec = load().byTypeUrl.get(typeUrl);
  if (!codec) return undefined;
  // a codec whose schema cannot be learned is printed as an unknown type, never fails a request
  return attempt(() => schemaOfCodec(codec));
}

/** The codec's decode of a nested message a reflected type could not resolve (by its full name). */
export function builtinDecoder(fullName: string): ((bytes: Uint8Array) => Record<string, unknown>) | undefined {
  const codec = load().byTypeUrl.get(`/${fullName}`);
  return codec ? (bytes) => codec.decode(bytes) : undefined;
}
