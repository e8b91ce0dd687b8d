// Is this SQL one read of what analysts may read? Parsed by PostgreSQL's own parser (libpg-query)
// and accepted only as one SELECT whose every node is of a kind this file knows, naming only
// what the allow-list names (allow-list.ts). Anything else is refused with the reason and where
// in the text it is (docs/sql.md "What is refused").
import { loadModule, parseSync } from 'libpg-query';
import { ServiceError } from '../../../internal/errors.ts';
import {
  ALLOWED_FUNCTIONS,
  ALLOWED_OPERATORS,
  ALLOWED_RELATIONS,
  ALLOWED_TABLE_FUNCTIONS,
  ALLOWED_TYPES,
} from './allow-list.ts';

/** A query refused before it reached the database: why, and where (characters from 1). */
export class SqlRefused extends ServiceError {
  override name = 'SqlRefused';
  constructor(
    message: string,
    readonly position?: number,
  ) {
    super(message);
  }
}

export interface CheckedSql {
  /** The one statement's text, without the comments and semicolon around it. */
  statement: string;
  /** Where the statement starts in the text given, in characters from 0. */
  offset: number;
}

/** The parser is WebAssembly: loaded once, before the first check. */
export const sqlParserReady: Promise<void> = loadModule();

type Node = Record<string, unknown>;
/** A parse-tree node as the parser prints it: `{Kind: fields}`. */
const kindOf = (node: unknown): [string, Node] | undefined => {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const keys = Object.keys(node);
  return keys.length === 1 ? [keys[0]!, (node as Node)[keys[0]!] as Node] : undefined;
};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);
const names = (value: unknown): string[] =>
  list(value).map((n) => {
    const s = kindOf(n);
    return s?.[0] === 'String' ? String(s[1].sval ?? '') : '*';
  });

const SCHEMAS = new Set(['pg_catalog', 'public']);
const TIME_VALUES = new Set([
  'SVFOP_CURRENT_DATE',
  'SVFOP_CURRENT_TIME',
  'SVFOP_CURRENT_TIME_N',
  'SVFOP_CURRENT_TIMESTAMP',
  'SVFOP_CURRENT_TIMESTAMP_N',
  'SVFOP_LOCALTIME',
  'SVFOP_LOCALTIME_N',
  'SVFOP_LOCALTIMESTAMP',
  'SVFOP_LOCALTIMESTAMP_N',
]);
/** A_Expr kinds whose operator is one of ALLOWED_OPERATORS or a plain comparison. */
const EXPRESSION_KINDS = new Set([
  'AEXPR_OP',
  'AEXPR_OP_ANY',
  'AEXPR_OP_ALL',
  'AEXPR_DISTINCT',
  'AEXPR_NOT_DISTINCT',
  'AEXPR_NULLIF',
  'AEXPR_IN',
  'AEXPR_LIKE',
  'AEXPR_ILIKE',
  'AEXPR_BETWEEN',
  'AEXPR_NOT_BETWEEN',
  'AEXPR_BETWEEN_SYM',
  'AEXPR_NOT_BETWEEN_SYM',
]);

/**
 * How deep brackets may nest in a query's text, its string literals and its parameters
 * included. PostgreSQL parses nested brackets (its grammar's stack, a JSON or array value's
 * parser) by recursing, and the embedded database's WebAssembly stack, which its own stack
 * check does not see, runs out at several hundred levels (a JSON literal ~1,000, parentheses
 * ~900 on this build): past it the statement traps, or writes past its stack. No analyst's
 * query needs more than a few dozen levels; the bound is the same on a server.
 */
export const MAX_NESTING = 100;

/**
 * Where (in characters from 0) the text's brackets — ( [ { — first nest deeper than
 * MAX_NESTING, or undefined. A closing bracket never takes the count below 0, so closers
 * elsewhere (in another string) cannot hide an opening run.
 */
export function tooDeepAt(text: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) {
      if (++depth > MAX_NESTING) return i;
    } else if ((c === 41 || c === 93 || c === 125) && depth > 0) depth--;
  }
  return undefined;
}

/**
 * Checks one query; throws SqlRefused with the reason. `refusedFields`: the names PostgreSQL
 * would call or cast to when written as a field (`x.f` is `f(x)` when `x` has no column `f`),
 * the allow-list's own taken out (the runner reads them from the catalog: run.ts).
 */
export async function checkSql(text: string, refusedFields: ReadonlySet<string>): Promise<CheckedSql> {
  await sqlParserReady;
  return checkSqlSync(text, refusedFields);
}

export function checkSqlSync(text: string, refusedFields: ReadonlySet<string>): CheckedSql {
  const bytes = Buffer.from(text, 'utf8');
  /** The parser speaks in bytes; people and PostgreSQL's errors in characters. */
  const charAt = (byteOffset: number) => bytes.subarray(0, byteOffset).toString('utf8').length;
  /** `location`: a parse-tree node's, in bytes from 0 (a parse error's is in characters: `atChar`). */
  const refuse = (message: string, location?: unknown, atChar?: number): never => {
    throw new SqlRefused(
      message,
      atChar !== undefined
        ? atChar + 1
        : typeof location === 'number' && location >= 0
          ? charAt(location) + 1
          : undefined,
    );
  };

  if (text.includes('\0')) refuse('the query contains a NUL character');
  const deep = tooDeepAt(text);
  if (deep !== undefined)
    refuse(
      `the query is nested too deeply: at most ${MAX_NESTING} levels of brackets, JSON in its texts too`,
      undefined,
      deep,
    );
  if (text.trim() === '') refuse('the query is empty: send one SELECT');
  let tree: { stmts?: { stmt?: unknown; stmt_location?: number; stmt_len?: number }[] };
  try {
    tree = parseSync(text) as typeof tree;
  } catch (error) {
    if (error instanceof RangeError) return refuse('the query is nested too deeply');
    const details = (error as { sqlDetails?: { message?: string; cursorPosition?: number } }).sqlDetails;
    return refuse(`syntax error: ${details?.message ?? (error as Error).message}`, undefined, details?.cursorPosition);
  }
  const statements = tree.stmts ?? [];
  if (statements.length === 0) refuse('the query is empty: send one SELECT');
  if (statements.length > 1) refuse('one statement only: send one SELECT', statements[1]!.stmt_location);
  const [only] = statements;
  const start = only!.stmt_location ?? 0;
  const top = kindOf(only!.stmt);
  if (top?.[0] !== 'SelectStmt') refuse(`only SELECT is allowed, not ${describeStatement(top?.[0])}`, start);

  /** The names a relation may have in scope: the WITH queries around it. */
  const checkSelect = (select: Node, ctes: ReadonlySet<string>): void => {
    if (select.intoClause) refuse('SELECT INTO writes a table: only reading is allowed', select.location);
    if (select.lockingClause) refuse('FOR UPDATE/SHARE locks rows: only reading is allowed');
    let scope = ctes;
    const withClause = select.withClause as Node | undefined;
    if (withClause) {
      if (withClause.recursive) refuse('WITH RECURSIVE is not allowed', withClause.location);
      // each CTE sees the ones before it: one copy of the outer scope, grown as they come
      const grown = new Set(scope);
      scope = grown;
      for (const cte of list(withClause.ctes)) {
        const [kind, body] = kindOf(cte) ?? refuse('this WITH clause is not allowed');
        if (kind !== 'CommonTableExpr') refuse('this WITH clause is not allowed');
        const query = kindOf(body.ctequery);
        if (query?.[0] !== 'SelectStmt')
          refuse(`only SELECT is allowed in WITH, not ${describeStatement(query?.[0])}`, body.location);
        checkSelect(query![1], scope);
        grown.add(String(body.ctename));
      }
    }
    for (const key of Object.keys(select)) {
      if (!SELECT_FIELDS.has(key)) refuse(`this form of SELECT is not allowed (${key})`, select.location);
    }
    if (select.op && select.op !== 'SETOP_NONE') {
      checkSelect(select.larg as Node, scope);
      checkSelect(select.rarg as Node, scope);
    }
    for (const from of list(select.fromClause)) checkFrom(from, scope);
    for (const field of ['targetList', 'whereClause', 'groupClause', 'havingClause', 'windowClause', 'sortClause'])
      for (const node of list(select[field])) checkExpr(node, scope);
    for (const field of ['limitCount', 'limitOffset']) if (select[field]) checkExpr(select[field], scope);
    for (const node of list(select.distinctClause)) if (node && Object.keys(node).length > 0) checkExpr(node, scope);
    for (const row of list(select.valuesLists)) checkExpr(row, scope);
  };

  const checkFrom = (node: unknown, ctes: ReadonlySet<string>): void => {
    const [kind, body] = kindOf(node) ?? refuse('this FROM item is not allowed');
    switch (kind) {
      case 'RangeVar': {
        const relation = String(body.relname);
        const qualified = body.schemaname !== undefined || body.catalogname !== undefined;
        if (!qualified && ctes.has(relation)) return;
        if (
          body.catalogname !== undefined ||
          (qualified && body.schemaname !== 'public') ||
          !(relation in ALLOWED_RELATIONS)
        )
          refuse(
            `relation ${[body.catalogname, body.schemaname, relation].filter(Boolean).join('.')} is not allowed (GET /api/sql/relations lists what is)`,
            body.location,
          );
        return;
      }
      case 'JoinExpr':
        checkFrom(body.larg, ctes);
        checkFrom(body.rarg, ctes);
        if (body.quals) checkExpr(body.quals, ctes);
        return;
      case 'RangeSubselect': {
        const query = kindOf(body.subquery);
        if (query?.[0] !== 'SelectStmt') refuse('only SELECT is allowed in FROM');
        checkSelect(query![1], ctes);
        return;
      }
      case 'RangeFunction': {
        if (body.is_rowsfrom) refuse('ROWS FROM is not allowed');
        for (const item of list(body.functions)) {
          const [call] = list(kindOf(item)?.[1].items);
          const [callKind, fn] = kindOf(call) ?? refuse('only a set-returning function call is allowed in FROM');
          if (callKind !== 'FuncCall') refuse('only a set-returning function call is allowed in FROM');
          functionName(fn.funcname, fn.location, ALLOWED_TABLE_FUNCTIONS, 'in FROM');
          for (const arg of list(fn.args)) checkExpr(arg, ctes);
        }
        return;
      }
      default:
        refuse(`${kind} is not allowed in FROM`, body.location);
        return;
    }
  };

  const functionName = (funcname: unknown, location: unknown, allowed: ReadonlySet<string>, where = '') => {
    const parts = names(funcname);
    const name = parts.at(-1) ?? '';
    if (parts.length > 2 || (parts.length === 2 && !SCHEMAS.has(parts[0]!)) || !allowed.has(name))
      refuse(
        `function ${parts.join('.')} is not allowed${where ? ` ${where}` : ''} (docs/sql.md lists what is)`,
        location,
      );
  };

  const checkOperator = (name: unknown, location: unknown) => {
    const parts = names(name);
    const op = parts.at(-1) ?? '';
    if (parts.length > 2 || (parts.length === 2 && parts[0] !== 'pg_catalog') || !ALLOWED_OPERATORS.has(op))
      refuse(`operator ${parts.join('.')} is not allowed`, location);
  };

  const checkType = (typeName: Node) => {
    const parts = names(typeName.names);
    const name = parts.at(-1) ?? '';
    if (typeName.setof || typeName.pct_type) refuse('this type reference is not allowed', typeName.location);
    if (parts.length > 2 || (parts.length === 2 && !SCHEMAS.has(parts[0]!)) || !ALLOWED_TYPES.has(name))
      refuse(`type ${parts.join('.')} is not allowed`, typeName.location);
    for (const mod of list(typeName.typmods)) checkExpr(mod, new Set());
  };

  const checkExpr = (node: unknown, ctes: ReadonlySet<string>): void => {
    if (node === null || node === undefined) return;
    if (Array.isArray(node)) {
      for (const item of node) checkExpr(item, ctes);
      return;
    }
    const [kind, body] = kindOf(node) ?? refuse('this expression is not allowed');
    const walk = (...fields: string[]) => {
      for (const f of fields) checkExpr(body[f], ctes);
    };
    switch (kind) {
      case 'A_Const':
      case 'ParamRef':
      case 'A_Star':
      case 'String':
      case 'Integer':
      case 'Float':
      case 'Boolean':
        return;
      case 'ColumnRef': {
        const fields = list(body.fields);
        if (fields.length > 1) checkField(fields.at(-1), body.location);
        return;
      }
      case 'ResTarget':
        walk('val', 'indirection');
        return;
      case 'NamedArgExpr':
        walk('arg');
        return;
      case 'List':
        walk('items');
        return;
      case 'A_Expr':
        if (!EXPRESSION_KINDS.has(String(body.kind)))
          refuse(`${String(body.kind).replace('AEXPR_', '').replace(/_/g, ' ')} is not allowed`, body.location);
        if (body.kind !== 'AEXPR_NULLIF' && !String(body.kind).includes('BETWEEN'))
          checkOperator(body.name, body.location);
        walk('lexpr', 'rexpr');
        return;
      case 'BoolExpr':
        walk('args');
        return;
      case 'NullTest':
      case 'BooleanTest':
        walk('arg');
        return;
      case 'FuncCall': {
        functionName(body.funcname, body.location, ALLOWED_FUNCTIONS);
        walk('args', 'agg_order', 'agg_filter');
        if (body.over) checkWindow(body.over as Node, ctes);
        return;
      }
      case 'TypeCast':
        checkType(body.typeName as Node);
        walk('arg');
        return;
      case 'CaseExpr':
        walk('arg', 'args', 'defresult');
        return;
      case 'CaseWhen':
        walk('expr', 'result');
        return;
      case 'CoalesceExpr':
      case 'MinMaxExpr':
      case 'RowExpr':
        walk('args');
        return;
      case 'A_ArrayExpr':
        walk('elements');
        return;
      case 'A_Indirection': {
        // the node has no location of its own: its value's
        const at = kindOf(body.arg)?.[1].location;
        for (const item of list(body.indirection)) checkField(item, at);
        walk('arg', 'indirection');
        return;
      }
      case 'A_Indices':
        walk('lidx', 'uidx');
        return;
      case 'SortBy':
        if (body.useOp) refuse('ORDER BY … USING is not allowed', body.location);
        walk('node');
        return;
      case 'GroupingSet':
        walk('content');
        return;
      case 'WindowDef':
        checkWindow(body, ctes);
        return;
      case 'SubLink': {
        if (body.operName) checkOperator(body.operName, body.location);
        walk('testexpr');
        const query = kindOf(body.subselect);
        if (query?.[0] !== 'SelectStmt') refuse('only SELECT is allowed in a subquery', body.location);
        checkSelect(query![1], ctes);
        return;
      }
      case 'SQLValueFunction':
        if (!TIME_VALUES.has(String(body.op)))
          refuse(`${String(body.op).replace('SVFOP_', '')} is not allowed`, body.location);
        return;
      default:
        refuse(`${describeNode(kind)} is not allowed`, body.location);
        return;
    }
  };

  /** A field (`t.f`, `(x).f`): the call `f(x)` or a cast when `x` has no column `f`. */
  const checkField = (field: unknown, location: unknown) => {
    const name = kindOf(field)?.[0] === 'String' ? String(kindOf(field)![1].sval ?? '') : undefined;
    if (name !== undefined && refusedFields.has(name))
      refuse(
        `function or type ${name} is not allowed (written as a field, .${name} calls it on the value before it; docs/sql.md lists what is)`,
        location,
      );
  };

  const checkWindow = (window: Node, ctes: ReadonlySet<string>) => {
    for (const f of ['partitionClause', 'orderClause', 'startOffset', 'endOffset']) checkExpr(window[f], ctes);
  };

  try {
    checkSelect(top![1], new Set());
  } catch (error) {
    if (error instanceof RangeError) refuse('the query is nested too deeply');
    throw error;
  }
  const end = only!.stmt_len ? start + only!.stmt_len : bytes.length;
  return { statement: bytes.subarray(start, end).toString('utf8'), offset: charAt(start) };
}

/** The fields of a SELECT this checker knows (a new one refuses the query until it is known). */
const SELECT_FIELDS = new Set([
  'targetList',
  'fromClause',
  'whereClause',
  'groupClause',
  'groupDistinct',
  'havingClause',
  'windowClause',
  'sortClause',
  'limitCount',
  'limitOffset',
  'limitOption',
  'distinctClause',
  'valuesLists',
  'withClause',
  'op',
  'all',
  'larg',
  'rarg',
]);

const describeStatement = (kind: string | undefined) =>
  kind
    ? ((
        {
          InsertStmt: 'INSERT',
          UpdateStmt: 'UPDATE',
          DeleteStmt: 'DELETE',
          MergeStmt: 'MERGE',
          VariableSetStmt: 'SET/RESET',
          CopyStmt: 'COPY',
          ExplainStmt: 'EXPLAIN',
          TransactionStmt: 'a transaction statement',
          CallStmt: 'CALL',
          DoStmt: 'DO',
          NotifyStmt: 'NOTIFY',
          ListenStmt: 'LISTEN',
          LockStmt: 'LOCK',
        } as Record<string, string>
      )[kind] ?? describeNode(kind).replace(/ ?Stmt$/, ''))
    : 'this statement';

/** A parse-tree kind in words: `XmlExpr` → `XmlExpr`, `CollateClause` → `COLLATE`. */
const describeNode = (kind: string) =>
  ({ CollateClause: 'COLLATE', RangeTableSample: 'TABLESAMPLE', XmlExpr: 'XML', XmlSerialize: 'XMLSERIALIZE' })[kind] ??
  kind;
