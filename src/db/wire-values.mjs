// @ts-check
// How values come back from PostgreSQL's text protocol, shared by the server adapter
// (postgres.ts) and the embedded database's worker (embedded-worker.mjs, plain JavaScript so
// that its thread starts without a TypeScript loader).

/**
 * A server's error position (a string of characters from 1, or absent) as a number, or undefined.
 * @param {unknown} value
 * @returns {number | undefined}
 */
export function errorPosition(value) {
  const position = Number(value);
  return Number.isInteger(position) && position > 0 ? position : undefined;
}

/**
 * int8 comes back as a JS number when it is exact, else as its decimal string (amounts use numeric::text).
 * @param {string} value
 * @returns {number | string}
 */
export function parseInt8(value) {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
}
