// The chain's own message types, learned from the chain: the SDK's reflection service
// (`cosmos.reflection.v1.ReflectionService/FileDescriptors`, SDK 0.47+) answers with the
// descriptor of every proto file the chain registered. Each message of them becomes a
// MessageSchema (src/chain/proto-types.ts) that the gateway JSON printer walks, so a tx
// carrying a module's own messages prints their fields (docs/chain-api.md, "How messages
// are printed"). A node without the service yields no types; nothing fails because of it.
import { BinaryReader } from 'cosmjs-types/binary';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import type { Logger } from '../internal/logger.ts';
import { queryRefusal } from './errors.ts';
import {
  builtinDecoder,
  builtinSchema,
  type FieldSchema,
  type MessageSchema,
  warmBuiltinTypes,
} from './proto-types.ts';

export const FILE_DESCRIPTORS_PATH = '/cosmos.reflection.v1.ReflectionService/FileDescriptors';

/** An ABCI query: the response value's bytes; throws when the node refuses or cannot be reached. */
export type AbciQuery = (path: string, data: Uint8Array) => Promise<Uint8Array>;

export interface ChainTypes {
  /** The schema of a message the chain declared, by type URL (`/package.Message`). */
  schema(typeUrl: string): MessageSchema | undefined;
  /** Every message type URL the chain declared. */
  typeUrls(): string[];
}

export const NO_CHAIN_TYPES: ChainTypes = { schema: () => undefined, typeUrls: () => [] };

/** The raw FileDescriptorProto bytes in a FileDescriptorsResponse (field 1, repeated). */
function filesOf(response: Uint8Array): Uint8Array[] {
  const files: Uint8Array[] = [];
  const r = new BinaryReader(response);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === 2) files.push(r.bytes());
    else r.skipType(tag & 7);
  }
  return files;
}

/**
 * The chain's types, from its reflection service. A node that refuses the query (no such
 * service) gives none; a node that cannot be reached throws, so the caller can try again.
 */
export async function loadChainTypes(abciQuery: AbciQuery): Promise<ChainTypes> {
  let response: Uint8Array;
  try {
    response = await abciQuery(FILE_DESCRIPTORS_PATH, new Uint8Array());
  } catch (error) {
    if (queryRefusal(error)) return NO_CHAIN_TYPES;
    throw error;
  }
  try {
    return chainTypesOf(filesOf(response));
  } catch (error) {
    throw new UnusableDescriptors(error);
  }
}

/** The node answered with descriptors the types cannot be built from (asking again would not help). */
export class UnusableDescriptors extends Error {
  constructor(cause: unknown) {
    super(`the chain's file descriptors cannot be read: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}

// --- gogoproto field options, which the descriptor decoders drop ---

interface GogoOptions {
  customtype?: string;
  casttype?: string;
  nullable?: boolean;
}

const GOGO_NULLABLE = 65001;
const GOGO_CUSTOMTYPE = 65003;
const GOGO_CASTTYPE = 65007;

/** Reads a message's fields: each field number with its values (varints as numbers, the rest as bytes). */
function fieldsOf(bytes: Uint8Array): Map<number, (Uint8Array | number)[]> {
  const out = new Map<number, (Uint8Array | number)[]>();
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const tag = r.uint32();
    const wire = tag & 7;
    let value: Uint8Array | number | undefined;
    if (wire === 2) value = r.bytes();
    else if (wire === 0) value = r.uint32();
    else r.skipType(wire);
    if (value !== undefined) out.set(tag >>> 3, [...(out.get(tag >>> 3) ?? []), value]);
  }
  return out;
}

const text = (v: Uint8Array | number | undefined) => (v instanceof Uint8Array ? new TextDecoder().decode(v) : '');

function gogoMessageOptions(bytes: Uint8Array, scope: string, out: Map<string, GogoOptions>): void {
  const m = fieldsOf(bytes);
  const name = `${scope}.${text(m.get(1)?.[0])}`;
  for (const field of m.get(2) ?? []) {
    if (!(field instanceof Uint8Array)) continue;
    const f = fieldsOf(field);
    const options = f.get(8)?.[0];
    if (!(options instanceof Uint8Array)) continue;
    const o = fieldsOf(options);
    const customtype = o.get(GOGO_CUSTOMTYPE)?.[0];
    const casttype = o.get(GOGO_CASTTYPE)?.[0];
    const nullable = o.get(GOGO_NULLABLE)?.[0];
    if (customtype === undefined && casttype === undefined && nullable === undefined) continue;
    out.set(`${name}.${text(f.get(1)?.[0])}`, {
      customtype: customtype === undefined ? undefined : text(customtype),
      casttype: casttype === undefined ? undefined : text(casttype),
      nullable: nullable === undefined ? undefined : nullable !== 0,
    });
  }
  for (const nested of m.get(3) ?? []) if (nested instanceof Uint8Array) gogoMessageOptions(nested, name, out);
}

/** `(gogoproto.customtype)`, `casttype` and `nullable` of each field, by `.package.Message.field`. */
function gogoOptions(file: Uint8Array): Map<string, GogoOptions> {
  const out = new Map<string, GogoOptions>();
  const m = fieldsOf(file);
  const pkg = text(m.get(2)?.[0]);
  for (const message of m.get(4) ?? []) {
    if (message instanceof Uint8Array) gogoMessageOptions(message, pkg ? `.${pkg}` : '', out);
  }
  return out;
}

// --- building the types ---

// biome-ignore lint/suspicious/noExplicitAny: protobufjs's decoded descriptor messages, read field by field
type Descriptor = any;

const TYPE_BYTES = 12;
const TYPE_ENUM = 14;
const TYPE_INT32 = 5;

/** What every message and enum of the files is called (`.package.Name`), and which messages are map entries. */
function declaredNames(files: Descriptor[]) {
  const names = new Set<string>();
  const mapEntries = new Set<string>();
  const visit = (d: Descriptor, scope: string) => {
    const name = `${scope}.${d.name}`;
    names.add(name);
    if (d.options?.mapEntry) mapEntries.add(name);
    for (const n of d.nestedType ?? []) visit(n, name);
    for (const e of d.enumType ?? []) names.add(`${name}.${e.name}`);
  };
  for (const f of files) {
    const scope = f.package ? `.${f.package}` : '';
    for (const m of f.messageType ?? []) visit(m, scope);
    for (const e of f.enumType ?? []) names.add(`${scope}.${e.name}`);
  }
  return { names, mapEntries };
}

/**
 * Readies the descriptors for protobufjs: services and extensions go (not needed, and
 * their types are often in files the chain did not send), a type declared twice is kept
 * once, and a field whose type is in no file becomes bytes (a message, decoded later by
 * cosmjs-types when it knows it) or int32 (an enum). Returns the fields so changed.
 */
function prepare(files: Descriptor[]): Map<string, string> {
  const { names } = declaredNames(files);
  const substituted = new Map<string, string>();
  const seen = new Set<string>();
  const fix = (d: Descriptor, scope: string) => {
    const name = `${scope}.${d.name}`;
    d.extension = [];
    for (const f of d.field ?? []) {
      if (!f.typeName || names.has(f.typeName)) continue;
      substituted.set(`${name}.${f.name}`, f.typeName.replace(/^\./, ''));
      f.type = f.type === TYPE_ENUM ? TYPE_INT32 : TYPE_BYTES;
      f.typeName = '';
    }
    for (const n of d.nestedType ?? []) fix(n, name);
  };
  for (const f of files) {
    const scope = f.package ? `.${f.package}` : '';
    f.service = [];
    f.extension = [];
    f.messageType = (f.messageType ?? []).filter((m: Descriptor) => {
      const name = `${scope}.${m.name}`;
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    });
    f.enumType = (f.enumType ?? []).filter((e: Descriptor) => {
      const name = `${scope}.${e.name}`;
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    });
    for (const m of f.messageType) fix(m, scope);
  }
  return substituted;
}

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, defaults: true, arrays: true, objects: true };

const isDec = (customtype: string) => /(^|\.)(Legacy)?Dec$/.test(customtype);
const isInt = (customtype: string) => /(^|\.)Int$/.test(customtype);

/** The types of the files (FileDescriptorProto bytes); a set protobufjs cannot build gives none. */
export function chainTypesOf(fileBytes: readonly Uint8Array[]): ChainTypes {
  if (fileBytes.length === 0) return NO_CHAIN_TYPES;
  const gogo = new Map<string, GogoOptions>();
  for (const file of fileBytes) for (const [k, v] of gogoOptions(file)) gogo.set(k, v);
  const files = fileBytes.map((b) => descriptor.FileDescriptorProto.decode(b) as Descriptor);
  const { mapEntries } = declaredNames(files);
  const substituted = prepare(files);
  const root = (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor({
    file: files,
  });

  const schemas = new Map<protobuf.Type, MessageSchema>();
  const types = new Map<string, protobuf.Type>();
  const collect = (ns: protobuf.NamespaceBase) => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Type) types.set(`/${nested.fullName.slice(1)}`, nested);
      if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) collect(nested);
    }
  };
  collect(root);

  const schemaOf = (type: protobuf.Type): MessageSchema => {
    const known = schemas.get(type);
    if (known) return known;
    const fields: FieldSchema[] = [];
    const schema: MessageSchema = {
      typeUrl: `/${type.fullName.slice(1)}`,
      fields,
      decode: (bytes) => type.toObject(type.decode(bytes), TO_OBJECT),
    };
    // set before its fields: a message may nest itself
    schemas.set(type, schema);
    fields.push(...type.fieldsArray.map((f) => fieldOf(type, f)));
    return schema;
  };

  /** A field whose type was in no file: a well-known or cosmjs-types message, decoded from its bytes. */
  const substitute = (field: FieldSchema, original: string) => {
    const decode = builtinDecoder(original);
    if (!decode) return;
    field.decode = decode;
    if (original === 'google.protobuf.Any') field.kind = 'any';
    else if (original === 'google.protobuf.Timestamp') field.kind = 'timestamp';
    else if (original === 'google.protobuf.Duration') field.kind = 'duration';
    else {
      field.kind = 'message';
      field.message = () => builtinSchema(`/${original}`);
    }
  };

  const fieldOf = (parent: protobuf.Type, f: protobuf.Field): FieldSchema => {
    f.resolve();
    const id = `${parent.fullName}.${f.name}`;
    const field: FieldSchema = {
      key: f.name,
      name: f.name,
      kind: 'scalar',
      repeated: f.repeated,
      omitWhenUnset: f.partOf !== null,
    };
    const resolved = f.resolvedType;
    if (resolved instanceof protobuf.Enum) {
      const values = resolved.valuesById;
      field.kind = 'enum';
      field.enumName = (n) => values[n];
    } else if (resolved instanceof protobuf.Type) {
      const name = resolved.fullName;
      if (name === '.google.protobuf.Any') field.kind = 'any';
      else if (name === '.google.protobuf.Timestamp') field.kind = 'timestamp';
      else if (name === '.google.protobuf.Duration') field.kind = 'duration';
      else if (mapEntries.has(name) && resolved.fields.value) {
        field.kind = 'map';
        field.repeated = false;
        const value = resolved.fields.value;
        field.mapValue = () => fieldOf(resolved, value);
      } else {
        field.kind = 'message';
        field.message = () => schemaOf(resolved);
      }
    }
    const options = gogo.get(id);
    const original = substituted.get(id);
    if (original) {
      substitute(field, original);
      field.emptyIsUnset = options?.nullable !== false;
    }
    const goType = options?.customtype ?? options?.casttype ?? '';
    if (isDec(goType)) field.format = 'dec';
    else if (/(RawContractMessage|json\.RawMessage)$/.test(goType)) field.format = 'json';
    else if (/HexBytes$/.test(goType)) field.format = 'hex';
    else if (isInt(goType) && f.type === 'bytes') field.format = 'text';
    // a customtype is a Go pointer unless (gogoproto.nullable) = false
    if (options?.customtype && options.nullable !== false) field.nullWhenEmpty = true;
    return field;
  };

  return {
    schema: (typeUrl) => {
      const type = types.get(typeUrl);
      return type ? schemaOf(type) : undefined;
    },
    typeUrls: () => [...types.keys()],
  };
}

// --- the types in use ---

let current: ChainTypes = NO_CHAIN_TYPES;

/** The chain's types as last loaded (none until they are). */
export const chainTypes = (): ChainTypes => current;

/** Makes these the chain's types (the loader does; tests set their own). */
export function useChainTypes(types: ChainTypes): void {
  current = types;
}

/**
 * Loads the cosmjs-types codecs, then the chain's types, in the background: at once, and
 * again after `retryMs` (doubling up to 10 min) while the node cannot be reached. Returns
 * a function that stops the retries.
 */
export function startChainTypes(abciQuery: AbciQuery, logger: Logger, retryMs = 30_000): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let delay = retryMs;
  const attempt = async () => {
    try {
      const types = await loadChainTypes(abciQuery);
      if (stopped) return;
      useChainTypes(types);
      logger.info({ types: types.typeUrls().length }, 'loaded the chain’s message types from its reflection service');
    } catch (error) {
      if (stopped) return;
      if (error instanceof UnusableDescriptors) {
        logger.warn({ err: error }, 'the chain’s message types are not used: its descriptors do not build');
        return;
      }
      logger.warn({ err: error, retryInMs: delay }, 'could not load the chain’s message types; will try again');
      timer = setTimeout(attempt, delay);
      timer.unref();
      delay = Math.min(delay * 2, 600_000);
    }
  };
  timer = setTimeout(() => {
    const { count, ms } = warmBuiltinTypes();
    logger.debug({ count, ms: Math.round(ms) }, 'loaded the cosmjs-types message codecs');
    void attempt();
  }, 0);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
