import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { sql } from 'drizzle-orm'
import type { Db } from '../../src/db/client.ts'

/**
 * Where any of `needles` (a user id, an e-mail) still appears: every row of
 * every table in the public schema (as JSON text), and every path and file
 * content under `dataDir`. Used to prove a deletion left nothing behind.
 */
export async function scanFor(db: Db, dataDir: string, needles: string[]): Promise<{ rows: string[]; files: string[] }> {
  const lower = needles.map((n) => n.toLowerCase())
  const result = await db.execute<{ table_name: string }>(
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  )
  const tables = (Array.isArray(result) ? result : (result as { rows: { table_name: string }[] }).rows).map((r) => r.table_name)
  const rows: string[] = []
  for (const table of tables) {
    const found = await db.execute<{ j: string }>(sql`select row_to_json(t)::text as j from ${sql.identifier(table)} t`)
    for (const { j } of Array.isArray(found) ? found : (found as { rows: { j: string }[] }).rows) {
      if (lower.some((n) => j.toLowerCase().includes(n))) rows.push(`${table}: ${j}`)
    }
  }
  const files: string[] = []
  const walk = (dir: string) => {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return
    }
    for (const name of names) {
      const full = join(dir, name)
      const rel = relative(dataDir, full)
      if (lower.some((n) => rel.toLowerCase().includes(n))) files.push(rel)
      if (statSync(full).isDirectory()) walk(full)
      else if (lower.some((n) => readFileSync(full).toString('latin1').toLowerCase().includes(n))) files.push(`${rel} (content)`)
    }
  }
  walk(dataDir)
  return { rows, files }
}
