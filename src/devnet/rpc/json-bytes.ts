// JSON already encoded: a block's stored results are megabytes of JSON bytes, sent as they
// are instead of being decoded into one string and encoded again for every answer.

export class JsonBytes {
  constructor(readonly parts: readonly (string | Uint8Array)[]) {}

  /** The parts as bytes (strings encoded as UTF-8). */
  buffers(): Uint8Array[] {
    return this.parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p));
  }

  /** The bytes of the whole, in one buffer. */
  toBuffer(): Buffer {
    return Buffer.concat(this.buffers());
  }
}

/** An answer to send: text, or bytes with text around them. */
export type Answer = string | JsonBytes;

/** `answers` joined with `separator` between them and `open`/`close` around. */
export function joinAnswers(open: string, answers: readonly Answer[], separator: string, close: string): Answer {
  if (answers.every((a) => typeof a === 'string')) return `${open}${answers.join(separator)}${close}`;
  const parts: (string | Uint8Array)[] = [open];
  answers.forEach((a, i) => {
    if (i > 0) parts.push(separator);
    if (typeof a === 'string') parts.push(a);
    else parts.push(...a.parts);
  });
  parts.push(close);
  return new JsonBytes(parts);
}
