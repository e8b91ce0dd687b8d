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
    .pipe(
      z
        .number()
        .min(min, `must be a whole number from ${min} to ${max}`)
        .max(max, `must be a whole number from ${min} to ${max}`)
        .meta({ type: 'integer' }), // for OpenAPI: the digits the regex lets through
    );

const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * The instants a date-time parameter may name: years 0001 to 9999 in UTC. A timestamp
 * goes to the database as ISO text, and outside these years that text is not one
 * PostgreSQL reads (year 0000 does not exist there; later years need six digits).
 */
export const EARLIEST_TIME = new Date('0001-01-01T00:00:00.000Z');
export const LATEST_TIME = new Date('9999-12-31T23:59:59.999Z');

/** Whether the written year-month-day is a day of the calendar (Date.parse rolls 02-30 over to March). */
function isCalendarDay(v: string): boolean {
  const [, y, m, d] = ISO_WITH_ZONE.exec(v)!.map(Number) as [number, number, number, number];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return days !== undefined && d >= 1 && d <= days;
}

const RANGE_MESSAGE = `must be from ${EARLIEST_TIME.toISOString()} to ${LATEST_TIME.toISOString()}`;

/** An ISO 8601 date-time that says its timezone (`Z` or an offset), within EARLIEST_TIME..LATEST_TIME. */
export const isoDateTime = z
  .string()
  .refine((v) => ISO_WITH_ZONE.test(v) && isCalendarDay(v) && !Number.isNaN(Date.parse(v)), {
    message: 'must be an ISO 8601 date-time with a timezone, e.g. 2026-01-31T12:00:00Z',
  })
  .transform((v) => new Date(v))
  .pipe(z.date().min(EARLIEST_TIME, RANGE_MESSAGE).max(LATEST_TIME, RANGE_MESSAGE))
  .meta({ format: 'date-time', description: 'ISO 8601 with a timezone (`Z` or `±hh:mm`), years 0001 to 9999' });

/** A bech32 address (checksum verified). */
export const bech32Address = z
  .string()
  .refine(
    (v) => {
      try {
        const { data } = fromBech32(v, 256);
        return v === v.toLowerCase() && (data.length === 20 || data.length === 32);
      } catch {
        return false;
      }
    },
    { message: 'must be a bech32 account or contract address' },
  )
  .meta({ description: 'a bech32 account or contract address (checksum verified, lower case)' });

export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  input: unknown,
  what = 'Invalid query parameters',
): z.output<T> {
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
