// The chain's block log: every committed block is appended (length, CRC-32, bytes) before it
// is served, with the contract calls it made in its BeginBlock and EndBlock, so a replay runs
// them again where they ran. With a data directory the log is durable (fsynced) and read back
// on start; a torn last record (the process died mid-write) is cut off, so the chain resumes
// at the last complete block. Without one, the log is a scratch file that keeps old blocks
// out of memory.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { CommittedBlock } from '../blocks/block.ts';
import { decodeBlock, encodeBlock } from '../blocks/block-codec.ts';
import type { StoredAt } from '../blocks/block-store.ts';
import type { CometVersion } from '../core/protocol.ts';

export interface ChainMeta {
  chainId: string;
  genesisTimeNs: string;
  /** Accounts derive from the mnemonic; a data dir made with another one is another chain. */
  mnemonicFingerprint: string;
  /** The protocol the blocks were recorded in (their results are stored as it answers them); absent means 0.38. */
  cometVersion?: CometVersion;
}

export interface BlockLog {
  readonly meta: ChainMeta | null;
  writeMeta(meta: ChainMeta): void;
  /** Complete records in order; truncates a torn tail. */
  readAll(): Generator<{ block: CommittedBlock; at: StoredAt }>;
  /** Writes the block (and, when durable, fsyncs it); returns where its bytes lie. */
  append(block: CommittedBlock): StoredAt;
  readAt(at: StoredAt): CommittedBlock;
  close(): void;
}

const RECORD_HEADER = 8;

export function openBlockLog(dataDir: string, { durable }: { durable: boolean }): BlockLog {
  mkdirSync(dataDir, { recursive: true });
  const metaPath = path.join(dataDir, 'chain.json');
  const logPath = path.join(dataDir, 'blocks.log');
  const meta = existsSync(metaPath) ? (JSON.parse(readFileSync(metaPath, 'utf8')) as ChainMeta) : null;
  const fd = openSync(logPath, constants.O_RDWR | constants.O_CREAT);
  let validLength = 0;

  return {
    meta,
    writeMeta(next) {
      const tmp = `${metaPath}.tmp`;
      writeFileSync(tmp, JSON.stringify(next, null, 2));
      const metaFd = openSync(tmp, 'r+');
      fsyncSync(metaFd);
      closeSync(metaFd);
      renameSync(tmp, metaPath);
    },
    *readAll() {
      const size = fstatSync(fd).size;
      const header = Buffer.alloc(RECORD_HEADER);
      let at = 0;
      while (at + RECORD_HEADER <= size) {
        readSync(fd, header, 0, RECORD_HEADER, at);
        const length = header.readUInt32LE(0);
        const checksum = header.readUInt32LE(4);
        if (at + RECORD_HEADER + length > size) break;
        const payload = Buffer.allocUnsafeSlow(length); // its own memory: the block decoded from it keeps it
        readSync(fd, payload, 0, length, at + RECORD_HEADER);
        if (crc32(payload) !== checksum) break;
        const stored = { offset: at + RECORD_HEADER, length };
        at += RECORD_HEADER + length;
        validLength = at;
        yield { block: decodeBlock(payload), at: stored };
      }
      if (validLength < size) ftruncateSync(fd, validLength);
    },
    append(block) {
      const payload = encodeBlock(block);
      const header = Buffer.alloc(RECORD_HEADER);
      header.writeUInt32LE(payload.length, 0);
      header.writeUInt32LE(crc32(payload), 4);
      writeSync(fd, header, 0, RECORD_HEADER, validLength);
      writeSync(fd, payload, 0, payload.length, validLength + RECORD_HEADER);
      if (durable) fsyncSync(fd);
      const stored = { offset: validLength + RECORD_HEADER, length: payload.length };
      validLength += RECORD_HEADER + payload.length;
      return stored;
    },
    readAt({ offset, length }) {
      const payload = Buffer.allocUnsafeSlow(length); // its own memory: the block decoded from it keeps it
      readSync(fd, payload, 0, length, offset);
      return decodeBlock(payload);
    },
    close() {
      closeSync(fd);
    },
  };
}
