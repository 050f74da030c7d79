/**
 * Tiny search-param readers for `validateSearch`. Route options (unlike route
 * components) go into the first bundle, so these stay free of zod. Each
 * reader returns `undefined` for anything it can't read, like zod's
 * `.optional().catch(undefined)`.
 */

type Params = Record<string, unknown>

/**
 * A search validator the router accepts (`{ parse }`), typed by its output:
 * one reader per key (see `readKeys`).
 *
 *     validateSearch: searchValidator<{ page?: number }>({ page: (v) => optionalInt(v, 1) })
 */
export function searchValidator<T extends object>(readers: { [K in keyof T]-?: (v: unknown) => T[K] }): { parse(input: Params): T } {
  return { parse: (input) => readKeys<T>(input && typeof input === 'object' ? input : {}, readers) }
}

/** A string, as is. */
export function optionalString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined
}

/** A whole number ≥ min (≤ max), from a number or text (like `z.coerce.number().int()`). */
export function optionalInt(v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (v === undefined) return undefined
  const n = Number(v)
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined
}

/** A true boolean (the router reads `?x=true` as `true`); anything else is dropped. */
export function optionalBoolean(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined
}

/**
 * Reads each key present in the input with its reader (absent keys stay
 * absent, unreadable ones become undefined, other keys are left out), as a
 * zod object of `.optional().catch(undefined)` fields does.
 */
function readKeys<T extends object>(input: Params, readers: { [K in keyof T]-?: (v: unknown) => T[K] }): T {
  const out = {} as T
  for (const key of Object.keys(readers) as (keyof T & string)[]) if (key in input) out[key] = readers[key](input[key])
  return out
}
