import { type ClientResponse, hc } from 'hono/client'
import type { SuccessStatusCode } from 'hono/utils/http-status'
import type { AppType } from '#server/app.ts'
import { detailText } from './detail-text.ts'

/** Requests that take longer than this fail with the TIMEOUT_ERROR kind. */
export const REQUEST_TIMEOUT_MS = 30_000

function timedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS)
  const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout
  return fetch(input, { ...init, signal, credentials: 'same-origin' })
}

/**
 * Typed client over the server's Hono app: `api.auth.session.$get()`.
 * Paths, inputs and response bodies come from `AppType`, never copied.
 */
export const client = hc<AppType>(window.location.origin, { fetch: timedFetch as typeof fetch })
export const api = client.api

/** docs/product.md#client-errors: the client error kinds: a network failure, a timeout, an unparsable body, or the HTTP status. */
export type ApiErrorKind = 'FETCH_ERROR' | 'TIMEOUT_ERROR' | 'PARSING_ERROR' | number

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    /** HTTP status when a response arrived (also set for PARSING_ERROR). */
    readonly status?: number,
    /** The parsed error body, or the raw text when it was not JSON. */
    readonly data?: unknown,
    /** Why, where the server names it in `x-error-kind` (a failed link look-up). */
    readonly errorKind?: string | null,
    /** The failure's own sentence, where the server gives one in `x-error-reason` (a missing JavaScript runtime). */
    readonly errorReason?: string | null,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** The body type of the 2xx responses in a union of typed responses. */
export type OkBody<R> = R extends ClientResponse<infer T, infer S, infer _F> ? (S extends SuccessStatusCode ? T : never) : never

/** Reduces an error body to its text: `{detail}` gives the detail, anything else the raw body. */
export function detailOf(data: unknown, raw: string): string {
  if (data && typeof data === 'object' && 'detail' in data && typeof data.detail === 'string') return data.detail
  return raw
}

/**
 * Sends a typed request and returns its 2xx body (null for an empty body).
 * Everything else throws an ApiError carrying one of the kinds of docs/product.md#client-errors.
 *
 *     const user = await request(api.auth.login.$post({ json: { email, password } }))
 */
export async function request<R extends ClientResponse<unknown, number, string>>(pending: Promise<R>): Promise<OkBody<R>> {
  let res: R
  try {
    res = await pending
  } catch (err) {
    if (err instanceof DOMException && (err.name === 'TimeoutError' || err.name === 'AbortError'))
      throw new ApiError('TIMEOUT_ERROR', 'The request timed out.')
    throw new ApiError('FETCH_ERROR', 'Could not reach the server.')
  }
  let raw: string
  try {
    raw = await res.text()
  } catch {
    throw new ApiError('FETCH_ERROR', 'Could not reach the server.', res.status)
  }
  let data: unknown = null
  if (raw !== '') {
    if (res.headers.get('content-type')?.includes('json')) {
      try {
        data = JSON.parse(raw)
      } catch {
        throw new ApiError('PARSING_ERROR', raw || 'The server sent an unreadable answer.', res.status, raw)
      }
    } else data = raw
  }
  if (res.status >= 200 && res.status < 300) return data as OkBody<R>
  throw new ApiError(res.status, detailText(detailOf(data, raw)) || `Request failed (${res.status}).`, res.status, data, res.headers.get('x-error-kind'), res.headers.get('x-error-reason'))
}

/** Text for an error shown in a form or notification. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}

/** True for an ApiError answered with the given HTTP status. */
export function isStatus(err: unknown, status: number): boolean {
  return err instanceof ApiError && err.status === status && typeof err.kind === 'number'
}
