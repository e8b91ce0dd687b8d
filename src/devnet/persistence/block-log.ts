// Durable chain history for a devnet with a data directory: every committed block is
// appended (length, CRC-32, bytes) and fsynced before it is served, and read back on start.
// A torn last record (the process died mid-write) is cut off, so the chain resumes at the
// last complete block.
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeBlock, encodeBlock } from '../blocks/block-codec.ts';
import type { CommittedBlock } from '../blocks/block.ts';

export interface ChainMeta {
  chainId: string;
  genesisTimeNs: string;
  /** Accounts derive from the mnemonic; a data dir made with another one is another chain. */
  mnemonicFingerprint: string;
}

export interface BlockLog {
  readonly meta: ChainMeta | null;
  writeMeta(meta: ChainMeta): void;
  /** Complete records in order; truncates a torn tail. */
  readAll(): Generator<CommittedBlock>;
  append(block: CommittedBlock): void;
  close(): void;
}

const RECORD_HEADER = 8;

export function openBlockLog(dataDir: string): BlockLog {
  mkdirSync(dataDir, { recursive: true });
  const metaPath = path.join(dataDir, 'chain.json');
  const logPath = path.join(dataDir, 'blocks.log');
  const meta = existsSync(metaPath) ? (JSON.parse(readFileSync(metaPath, 'utf8')) as ChainMeta) : null;
  const fd = openSync(logPath, 'a+');
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
        const payload = Buffer.allocUnsafe(length);
        readSync(fd, payload, 0, length, at + RECORD_HEADER);
        if (crc32(payload) !== checksum) break;
        at += RECORD_HEADER + length;
        validLength = at;
        yield decodeBlock(payload);
      }
      if (validLength < size) ftruncateSync(fd, validLength);
    },
    append(block) {
      const payload = encodeBlock(block);
      const header = Buffer.alloc(RECORD_HEADER);
      header.writeUInt32LE(payload.length, 0);
      header.writeUInt32LE(crc32(payload), 4);
      writeSync(fd, header);
      writeSync(fd, payload);
      fsyncSync(fd);
      validLength += RECORD_HEADER + payload.length;
    },
    close() {
      closeSync(fd);
    },
  };
}
