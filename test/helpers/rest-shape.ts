// Comparing a Chain API body with a response recorded from a real Cosmos SDK node
// (test/fixtures/cosmos-rest/, sources in its SOURCES.md): the same keys at every level,
// in the same JSON types. Values differ (another chain); shapes must not.
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';

export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/cosmos-rest/${name}.json`, import.meta.url), 'utf8'));
}

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

export interface ShapeOptions {
  /** Paths (e.g. `tx_response.tx`) where `null` in one and a value in the other are both fine. */
  nullable?: readonly string[];
  /** Paths not compared (what differs between SDK versions, said at the call). */
  ignore?: readonly string[];
  /** Array paths (e.g. `balances`) allowed to be empty where the fixture has elements. */
  empty?: readonly string[];
}

/** The differences between `actual`'s shape and `expected`'s, as `path: problem` lines. */
export function shapeDifferences(actual: unknown, expected: unknown, options: ShapeOptions = {}, path = ''): string[] {
  if (options.ignore?.includes(path)) return [];
  const [a, e] = [kind(actual), kind(expected)];
  if (a !== e) {
    if ((a === 'null' || e === 'null') && options.nullable?.includes(path)) return [];
    return [`${path || '(root)'}: ${a} where the node answers ${e}`];
  }
  if (a === 'array') {
    const [first] = expected as unknown[];
    if (first === undefined) return [];
    // an empty answer would pass any element shape: where the node answers elements, so must we
    if ((actual as unknown[]).length === 0 && !options.empty?.includes(path))
      return [`${path || '(root)'}: empty where the node answers elements (their shape is unchecked)`];
    return (actual as unknown[])
      .flatMap((item, i) =>
        shapeDifferences(item, first, options, `${path}[]`).map((d) => (i === 0 ? d : d.replace('[]', `[${i}]`))),
      )
      .filter((d, i, all) => all.indexOf(d) === i);
  }
  if (a !== 'object') return [];
  const actualKeys = Object.keys(actual as object);
  const expectedKeys = Object.keys(expected as object);
  const at = (k: string) => (path ? `${path}.${k}` : k);
  const missing = expectedKeys.filter((k) => !actualKeys.includes(k) && !options.ignore?.includes(at(k)));
  const extra = actualKeys.filter((k) => !expectedKeys.includes(k) && !options.ignore?.includes(at(k)));
  return [
    ...missing.map((k) => `${at(k)}: missing`),
    ...extra.map((k) => `${at(k)}: not in the node's answer`),
    ...expectedKeys
      .filter((k) => actualKeys.includes(k))
      .flatMap((k) =>
        shapeDifferences(
          (actual as Record<string, unknown>)[k],
          (expected as Record<string, unknown>)[k],
          options,
          at(k),
        ),
      ),
  ];
}

/** Asserts `actual` has the shape of the recorded fixture `name`. */
export function assertShape(actual: unknown, name: string, options: ShapeOptions = {}): void {
  const differences = shapeDifferences(actual, fixture(name), options);
  assert.equal(differences, [], `shape of ${name}.json:\n  ${differences.join('\n  ')}`);
}
