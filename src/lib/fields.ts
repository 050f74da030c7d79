import { z } from 'zod'

/**
 * zod error option for required fields: 'Required' when the field is missing,
 * zod's own message otherwise (wrong type, too long, ...). A plain
 * `{ error: 'Required' }` would also replace the messages of later checks
 * such as `.max()`, telling a client that a too-long value is missing.
 * Plain zod only: the web forms import the schemas that use it.
 */
export const required = (issue: { input?: unknown }) => (issue.input === undefined ? 'Required' : undefined)

/**
 * The one refinement for text that is stored or used as a key: no NUL or other
 * control characters (PostgreSQL refuses NUL in text; no real name, tag, id or
 * URL has them). Refused with 422 naming the field by `valid()`.
 */
export const printable = <T extends z.ZodString>(s: T) => s.refine((v) => !CONTROL_CHARS.test(v), 'Must not contain control characters')

/** NUL, the other C0 controls and DEL. */
export const CONTROL_CHARS = /[\u0000-\u001f\u007f]/

/** `:id` path parameters (videos, channels, jobs). */
export const idParam = z.object({ id: printable(z.string()) })
