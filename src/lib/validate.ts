import type { ValidationTargets } from 'hono'
import { validator } from 'hono/validator'
import type { z } from 'zod'
import { fail } from './errors.ts'

/** Readable one-line summary of a zod error, naming the field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const field = i.path.join('.') || 'body'
      if (i.code === 'invalid_type' && /received undefined/.test(i.message)) return `${field}: Required`
      return `${field}: ${i.message}`
    })
    .join('; ')
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

/**
 * Hono validator over a zod schema: 422 `{detail}` naming the field on failure.
 * A JSON body sent with another Content-Type is 415 (Hono would otherwise
 * validate an empty object and report every field as missing).
 * Types flow to `hc` clients through the returned middleware.
 */
export function valid<T extends z.ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return validator(target, (value, c) => {
    if (target === 'json') {
      const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim()
      if (!JSON_MEDIA_TYPE.test(mediaType)) fail(415, 'Content-Type must be application/json.')
    }
    const result = schema.safeParse(value)
    if (!result.success) fail(422, describeIssues(result.error))
    return result.data as z.output<T>
  })
}
