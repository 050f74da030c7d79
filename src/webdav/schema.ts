import { z } from 'zod'
import { printable, required as missing } from '../lib/fields.ts'

const required = (max: number) => z.string({ error: missing }).min(1, 'Required').max(max)

export const webdavAccount = z.object({
  username: printable(required(256)),
  password: required(1024),
  url: printable(required(2048)).pipe(z.url({ protocol: /^https?$/, error: 'Invalid URL' })),
})

export type WebdavAccount = z.infer<typeof webdavAccount>
