// The column types of a table, which both adapters need to bulk-load it: the declared
// type (the server adapter casts its arrays to it) and the base type a domain stands for
// (what the embedded adapter's binary COPY encodes). Looked up once per table and
// database: tables do not change under a running service, and migrations run first.

export interface ColumnType {
  /** As declared, e.g. `amount` for a domain, `character varying`. */
  declared: string;
  /** The built-in type under a domain, e.g. `numeric`. */
  base: string;
}

const COLUMN_TYPES_SQL = `
  SELECT a.attname, format_type(a.atttypid, NULL) AS declared, coalesce(nullif(t.typbasetype, 0), a.atttypid)::regtype::text AS base
  FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
  WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`;

type Row = { attname: string } & ColumnType;

/** A lookup of column name → type by table, remembered; `query` runs the catalog query (in the caller's session). */
export function createColumnTypes() {
  const byTable = new Map<string, Promise<Map<string, ColumnType>>>();
  return (
    table: string,
    query: (sql: string, params: unknown[]) => Promise<Row[]>,
  ): Promise<Map<string, ColumnType>> => {
    let types = byTable.get(table);
    if (!types) {
      types = query(COLUMN_TYPES_SQL, [table]).then(
        (rows) => new Map(rows.map((r) => [r.attname, { declared: r.declared, base: r.base }])),
      );
      byTable.set(table, types);
      types.catch(() => byTable.delete(table));
    }
    return types;
  };
}
