import { z } from 'zod'

const required = (max: number) => z.string({ error: 'Required' }).min(1, 'Required').max(max)

export const webdavAccount = z.object({
  username: required(256),
  password: required(1024),
  url: required(2048).pipe(z.url({ protocol: /^https?$/, error: 'Invalid URL' })),
})

export type WebdavAccount = z.infer<typeof webdavAccount>
