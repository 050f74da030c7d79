/**
 * `db.execute()` answers an array with postgres.js and `{ rows }` with
 * PGlite; this gives the rows either way.
 */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  return ((result as { rows?: T[] }).rows ?? []) as T[]
}
