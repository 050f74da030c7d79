/**
 * zod error option for required fields: 'Required' when the field is missing,
 * zod's own message otherwise (wrong type, too long, ...). A plain
 * `{ error: 'Required' }` would also replace the messages of later checks
 * such as `.max()`, telling a client that a too-long value is missing.
 * Plain zod only: the web forms import the schemas that use it.
 */
export const required = (issue: { input?: unknown }) => (issue.input === undefined ? 'Required' : undefined)
