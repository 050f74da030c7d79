import { ErrorDataNotFound, ErrorGeneric, ErrorMissingParameter } from './errors.ts'

/** A Subsonic error: answered as `status="failed"` with `error {code, message}` in a 200. */
export class SubsonicError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export const notFound = (what: string) => new SubsonicError(ErrorDataNotFound, `${what} not found.`)

/** The request's parameters: the query string and, for a form POST, the body (OpenSubsonic formPost). */
export class Params {
  constructor(private readonly search: URLSearchParams) {}

  get(name: string): string | undefined {
    return this.search.get(name) ?? undefined
  }

  all(name: string): string[] {
    return this.search.getAll(name)
  }

  required(name: string): string {
    const v = this.get(name)
    if (v === undefined || v === '') throw new SubsonicError(ErrorMissingParameter, `Required parameter is missing: ${name}.`)
    return v
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.get(name)
    if (raw === undefined || raw === '') return fallback
    const n = Number(raw)
    if (!Number.isInteger(n)) throw new SubsonicError(ErrorGeneric, `Parameter ${name} must be a whole number.`)
    return Math.min(max, Math.max(min, n))
  }

  optionalInt(name: string): number | undefined {
    const raw = this.get(name)
    if (raw === undefined || raw === '') return undefined
    const n = Number(raw)
    if (!Number.isInteger(n)) throw new SubsonicError(ErrorGeneric, `Parameter ${name} must be a whole number.`)
    return n
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.get(name)
    if (raw === undefined || raw === '') return fallback
    return raw === 'true' || raw === '1'
  }
}
