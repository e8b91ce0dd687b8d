// PostgreSQL's COPY text format, for bulk writes through either adapter: one line per
// row, tab-separated, \N for null, backslash escapes, bytea as \x hex.

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const NEEDS_ESCAPE = /[\\\t\n\r]/;

function field(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  const json = JSON.stringify(value);
  return NEEDS_ESCAPE.test(json) ? json.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : json;
}

/** Rows (arrays in column order) as COPY text. Objects become JSON (for json/jsonb columns). */
export function copyText(rows: readonly (readonly unknown[])[]): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) out += '\t';
      out += field(row[i]);
    }
    out += '\n';
  }
  return out;
}

/** `"table" ("a", "b")` for COPY, with identifiers quoted. */
export function copyTarget(table: string, columns: readonly string[]): string {
  const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
  return `${q(table)} (${columns.map(q).join(', ')})`;
}
