import { and, eq, isNull, or, isNotNull } from 'drizzle-orm'
import { users } from '../auth/tables.ts'
import type { AppContext } from '../context.ts'
import { sendNotificationJob } from './jobs.ts'
import { logNotifyError } from './send.ts'
import type { Notification } from './schema.ts'
import { notificationSettings } from './tables.ts'

/**
 * Queues `notification` for every admin (not disabled) who set an endpoint
 * (ntfy or webhook), whatever their per-event choices: what an admin must act
 * on (the canary failing, src/tools/canary.ts). Never throws.
 */
export async function notifyAdmins(ctx: Pick<AppContext, 'db' | 'jobs'>, notification: Notification): Promise<number> {
  try {
    if (!ctx.jobs) return 0
    const s = notificationSettings
    const rows = await ctx.db
      .select({ userId: users.id })
      .from(users)
      .innerJoin(s, eq(s.userId, users.id))
      .where(and(eq(users.admin, true), isNull(users.disabledAt), or(isNotNull(s.ntfyUrl), isNotNull(s.webhookUrl))))
    for (const { userId } of rows) await ctx.jobs.enqueue(sendNotificationJob, { userId, notification })
    return rows.length
  } catch (err) {
    logNotifyError(err, { event: notification.event })
    return 0
  }
}
