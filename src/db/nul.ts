// PostgreSQL's text, and the strings of a jsonb document, cannot hold U+0000 (json keeps a
// `\u0000` as written, but no operator can read it back as text). Text that reaches the
// index from the chain can: a contract's event attribute, a token's name, a node's log. Both
// adapters store each U+0000 of a parameter or of a copied value as U+FFFD (the replacement
// character) instead of failing the statement, so no chain content can stop a write
// (docs/architecture.md, "The database seam").

const NUL = /\0/g;
/** `\u0000` in JSON text, not preceded by an escaping backslash. */
const JSON_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;

/** Whether `v` (a parameter or a copied value, with any JSON document inside) holds a U+0000. */
function holdsNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\0');
  if (v === null || typeof v !== 'object' || v instanceof Date || v instanceof Uint8Array) return false;
  if (Array.isArray(v)) return v.some(holdsNul);
  for (const key in v) if (key.includes('\0') || holdsNul((v as Record<string, unknown>)[key])) return true;
  return false;
}

/** `v`'s JSON text, with `\ufffd` for each `\u0000` (for JSON a statement receives as text). */
export function storableJson(v: unknown): string {
  const json = JSON.stringify(v);
  return json.includes('\\u0000') ? json.replace(JSON_NUL, '$1\\ufffd') : json;
}

/** A string as it is stored: U+FFFD for each U+0000. */
export const storableText = (s: string): string => (s.includes('\0') ? s.replace(NUL, '\uFFFD') : s);

/**
 * A parameter as it can be stored: a string with U+FFFD for each U+0000; an array (a
 * PostgreSQL array) element by element; a JSON document (any other object) as its JSON
 * text with `\ufffd` for `\u0000` (both adapters take a string for json/jsonb as the
 * document's text). Anything else, and anything without a U+0000, is returned as it is.
 */
export function storable(v: unknown): unknown {
  if (!holdsNul(v)) return v;
  if (typeof v === 'string') return storableText(v);
  if (Array.isArray(v)) return v.map(storable);
  return storableJson(v);
}

/** A copied value as it can be stored: in a copied row an array is a JSON document, as any object. */
function storableCopyValue(v: unknown): unknown {
  if (!holdsNul(v)) return v;
  return typeof v === 'string' ? storableText(v) : storableJson(v);
}

/** Rows to copy, with storable values (a row without a U+0000 is passed as it is). */
export const storableRows = (rows: readonly (readonly unknown[])[]): readonly (readonly unknown[])[] =>
  rows.some(holdsNul) ? rows.map((row) => (holdsNul(row) ? row.map(storableCopyValue) : row)) : rows;
