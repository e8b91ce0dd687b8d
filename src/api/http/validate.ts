// Query validation with zod: every input is parsed by a schema; the first problem of
// each parameter becomes a detail of one 400 answer.
import { fromBech32 } from '@cosmjs/encoding';
import { z } from 'zod';
import { badRequest } from './errors.ts';

/** A whole number from a query string, within bounds. */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { message: `must be a whole number from ${min} to ${max}` })
    .transform(Number)
    .pipe(z.number().min(min, `must be a whole number from ${min} to ${max}`).max(max, `must be a whole number from ${min} to ${max}`));

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** An ISO 8601 date-time that says its timezone (`Z` or an offset). */
export const isoDateTime = z
  .string()
  .refine((v) => ISO_WITH_ZONE.test(v) && !Number.isNaN(Date.parse(v)), {
    message: 'must be an ISO 8601 date-time with a timezone, e.g. 2026-01-31T12:00:00Z',
  })
  .transform((v) => new Date(v));

/** A bech32 address (checksum verified). */
export const bech32Address = z.string().refine(
  (v) => {
    try {
      const { data } = fromBech32(v, 256);
      return v === v.toLowerCase() && (data.length === 20 || data.length === 32);
    } catch {
      return false;
    }
  },
  { message: 'must be a bech32 account or contract address' },
);

export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown, what = 'Invalid query parameters'): z.output<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const seen = new Set<string>();
  const details = parsed.error.issues.flatMap((issue) => {
    const parameter = issue.path.length ? String(issue.path[0]) : '(query)';
    if (seen.has(parameter)) return [];
    seen.add(parameter);
    return [{ parameter, message: issue.message }];
  });
  throw badRequest(what, details);
}
