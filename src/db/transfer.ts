import { sql, type SQL } from 'drizzle-orm'
import type { Db, Tx } from './client.ts'

/**
 * Whole-database helpers for backup, restore and moving PGlite to
 * PostgreSQL: the app's tables in foreign-key order, row counts, a content
 * digest per table, and a table-by-table copy. They work on either driver
 * (PGlite or postgres.js) and on any PostgreSQL version from 15.
 *
 * Rows travel as JSON text (`row_to_json` → `json_populate_recordset`), so
 * every type goes through its own text form: timestamps, bytea, numeric and
 * json arrive exactly as they left.
 */

async function rows<T>(db: Tx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown
  // postgres.js returns the rows, PGlite `{ rows }`
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[]
}

export interface TableInfo {
  name: string
  /** Columns that take values on insert (generated columns are left out). */
  columns: string[]
}

/** The tables of schema `public`, parents before children (foreign keys), each with its insertable columns. */
export async function tablesInFkOrder(db: Tx): Promise<TableInfo[]> {
  const tables = await rows<{ name: string }>(
    db,
    sql`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by c.relname`,
  )
  const edges = await rows<{ child: string; parent: string }>(
    db,
    sql`select c.relname as child, p.relname as parent from pg_constraint k
        join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
        join pg_namespace n on n.oid = c.relnamespace
        where k.contype = 'f' and n.nspname = 'public'`,
  )
  const columns = await rows<{ table: string; column: string }>(
    db,
    sql`select table_name as "table", column_name as "column" from information_schema.columns
        where table_schema = 'public' and is_generated = 'NEVER' order by table_name, ordinal_position`,
  )
  const parents = new Map(tables.map((t) => [t.name, new Set<string>()]))
  for (const e of edges) {
    if (e.child === e.parent) throw new Error(`table ${e.child} references itself: copying it needs a row order, which is not supported`)
    parents.get(e.child)?.add(e.parent)
  }
  const order: string[] = []
  const visiting = new Set<string>()
  const visit = (name: string) => {
    if (order.includes(name)) return
    if (visiting.has(name)) throw new Error(`foreign keys form a cycle through ${name}`)
    visiting.add(name)
    for (const p of parents.get(name) ?? []) visit(p)
    visiting.delete(name)
    order.push(name)
  }
  for (const t of tables) visit(t.name)
  return order.map((name) => ({ name, columns: columns.filter((c) => c.table === name).map((c) => c.column) }))
}

export interface TableSummary {
  rows: number
  /** md5 over the sorted md5s of the rows' JSON text (UTC): equal digests, equal contents. */
  digest: string
}

/** Row count and content digest of every table. */
export async function summarize(db: Db): Promise<Record<string, TableSummary>> {
  return db.transaction(async (tx) => {
    // timestamptz renders in the session's zone: make both sides render alike
    await tx.execute(sql`set local timezone to 'UTC'`)
    const out: Record<string, TableSummary> = {}
    for (const { name } of await tablesInFkOrder(tx)) {
      const [row] = await rows<{ rows: string | number; digest: string }>(
        tx,
        sql`select count(*) as rows, md5(coalesce(string_agg(h, '' order by h collate "C"), '')) as digest
            from (select md5(row_to_json(t)::text) as h from ${sql.identifier(name)} t) s`,
      )
      out[name] = { rows: Number(row!.rows), digest: row!.digest }
    }
    return out
  })
}

/** Names of the tables holding at least one row. */
export async function nonEmptyTables(db: Db): Promise<string[]> {
  const summary = await summarize(db)
  return Object.entries(summary)
    .filter(([, s]) => s.rows > 0)
    .map(([name]) => name)
}

/** Differences between two summaries, one line each; empty when equal. */
export function compareSummaries(expected: Record<string, TableSummary>, actual: Record<string, TableSummary>): string[] {
  const problems: string[] = []
  for (const [name, want] of Object.entries(expected)) {
    const got = actual[name]
    if (!got) problems.push(`${name}: missing`)
    else if (got.rows !== want.rows) problems.push(`${name}: ${got.rows} rows, expected ${want.rows}`)
    else if (got.digest !== want.digest) problems.push(`${name}: same row count (${got.rows}) but different contents`)
  }
  for (const name of Object.keys(actual)) if (!(name in expected)) problems.push(`${name}: not in the source`)
  return problems
}

/**
 * Copies every row of `from` into `to` (same schema: both migrated to the
 * same version), parents first, in one transaction on the target; with
 * `replace`, the target's tables are emptied first. Sequences behind
 * serial/identity columns are moved past the copied values. Returns the rows
 * copied per table.
 */
export async function copyTables(
  from: Db,
  to: Db,
  opts: { replace?: boolean; batchSize?: number; onTable?: (table: string, rows: number) => void } = {},
): Promise<Record<string, number>> {
  const batchSize = opts.batchSize ?? 1000
  const tables = await tablesInFkOrder(from)
  const targetTables = new Map((await tablesInFkOrder(to)).map((t) => [t.name, t]))
  for (const t of tables) {
    const target = targetTables.get(t.name)
    if (!target) throw new Error(`table ${t.name} does not exist in the target: migrate both to the same version`)
    const missing = t.columns.filter((c) => !target.columns.includes(c))
    if (missing.length) throw new Error(`table ${t.name}: target lacks columns ${missing.join(', ')}`)
  }
  const copied: Record<string, number> = {}
  await to.transaction(async (tx) => {
    if (opts.replace && tables.length) {
      await tx.execute(sql.raw(`truncate ${tables.map((t) => `"${t.name}"`).join(', ')} cascade`))
    }
    for (const t of tables) {
      const cols = sql.raw(t.columns.map((c) => `"${c.replaceAll('"', '""')}"`).join(', '))
      let count = 0
      for (let offset = 0; ; offset += batchSize) {
        const [page] = await rows<{ json: string | null; n: string | number }>(
          from,
          sql`select json_agg(row_to_json(t))::text as json, count(*) as n
              from (select * from ${sql.identifier(t.name)} order by ctid limit ${batchSize} offset ${offset}) t`,
        )
        const n = Number(page?.n ?? 0)
        if (!n || !page?.json) break
        await tx.execute(
          sql`insert into ${sql.identifier(t.name)} (${cols}) overriding system value
              select ${cols} from json_populate_recordset(null::${sql.identifier(t.name)}, ${page.json}::json)`,
        )
        count += n
        if (n < batchSize) break
      }
      copied[t.name] = count
      opts.onTable?.(t.name, count)
    }
    // serial and identity columns: the next value must follow the copied ones
    const sequences = await rows<{ table: string; column: string }>(
      tx,
      sql`select table_name as "table", column_name as "column" from information_schema.columns
          where table_schema = 'public' and (is_identity = 'YES' or column_default like 'nextval(%')`,
    )
    for (const s of sequences) {
      const table = `"public"."${s.table}"`
      await tx.execute(
        sql.raw(`select setval(pg_get_serial_sequence('${table}', '${s.column}'), coalesce(max("${s.column}"), 0) + 1, false) from ${table}`),
      )
    }
  })
  return copied
}
