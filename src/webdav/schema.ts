import { z } from 'zod'
import { required as missing } from '../lib/fields.ts'

const required = (max: number) => z.string({ error: missing }).min(1, 'Required').max(max)
// stored as text: PostgreSQL refuses NUL, and no real user name or URL has control characters
const printable = (s: z.ZodString) => s.regex(/^[^\u0000-\u001f\u007f]*$/, 'Must not contain control characters')

export const webdavAccount = z.object({
  username: printable(required(256)),
  password: required(1024),
  url: printable(required(2048)).pipe(z.url({ protocol: /^https?$/, error: 'Invalid URL' })),
})

export type WebdavAccount = z.infer<typeof webdavAccount>
