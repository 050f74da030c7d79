import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** Throw to answer `{detail}` with `status`; formatted once in the app's onError. */
export function fail(status: ContentfulStatusCode, detail: string, headers?: Record<string, string>): never {
  const res = headers ? new Response(null, { status, headers }) : undefined
  throw new HTTPException(status, { message: detail, res })
}
