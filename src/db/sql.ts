// Statements written as SQL with their values in place, as postgres.js writes them:
//
//   db.query(sql`SELECT … FROM trades WHERE token_address = ${token} ${since ? sql`AND time > ${since}` : sql``}`)
//
// Every interpolated value becomes the next `$n` parameter; an interpolated Sql fragment is
// spliced in with its own values renumbered, so optional conditions are fragments (an empty
// one: sql``) and no parameter is numbered by hand. Text that is SQL itself and not a value
// (a column list) is `sql.raw`, and only ever a constant of the code.

/** A statement or a piece of one: its text around the values, and the values. */
export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** The text with `$1`-style placeholders, and the parameters in their order. */
  toQuery(): { text: string; params: unknown[] } {
    const params: unknown[] = [];
    const text = this.write(params);
    return { text, params };
  }

  private write(params: unknown[]): string {
    let text = this.strings[0]!;
    for (let i = 0; i < this.values.length; i++) {
      const value = this.values[i];
      if (value instanceof Sql) text += value.write(params);
      else {
        params.push(value);
        text += `$${params.length}`;
      }
      text += this.strings[i + 1]!;
    }
    return text;
  }
}

/** A statement: `sql\`SELECT … WHERE a = ${value}\``. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql(strings, values);
}

/** SQL text of the code itself (never a value from outside): a column list, a constant clause. */
sql.raw = (text: string): Sql => new Sql([text], []);

/** Fragments with `separator` (SQL text of the code) between them: conditions joined by ` AND `. */
sql.join = (parts: readonly Sql[], separator: string): Sql =>
  parts.length === 0 ? sql.raw('') : new Sql(['', ...parts.slice(1).map(() => separator), ''], parts);

/** The statement and parameters a seam's `query` was given, either way it was called. */
export function statement(text: string | Sql, params: readonly unknown[] = []): { text: string; params: unknown[] } {
  if (text instanceof Sql) {
    if (params.length > 0) throw new TypeError('a sql`…` statement carries its own parameters');
    return text.toQuery();
  }
  return { text, params: params as unknown[] };
}
