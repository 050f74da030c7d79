import { answer } from '../format.ts'
import type { Method } from './call.ts'
import { songCount } from './queries.ts'

/** Library scanning: the library is the finished jobs, read on every answer, so there is never a scan to wait for. */
const status: Method = async ({ ctx, user }) => answer('scanStatus', { scanning: false, count: await songCount(ctx.db, user.id) })

export const scanning: Record<string, Method> = {
  getScanStatus: status,
  startScan: status,
}
