import { and, eq, isNull } from 'drizzle-orm'
import { users } from '../auth/tables.ts'
import type { AppContext } from '../context.ts'
import { errorFields, log } from '../lib/logger.ts'
import { sendNotificationJob } from './jobs.ts'
import { logNotifyError } from './send.ts'
import { notificationSettings } from './tables.ts'
import type { Notification } from './schema.ts'

/** What only an admin can act on: `admin.alert` (a bot-check pause) or `tools.canary` (the canary failing). */
export type AdminEvent = Extract<Notification['event'], 'admin.alert' | 'tools.canary'>

/**
 * Tells every enabled admin about something the server needs them for (a
 * bot-check pause of YouTube downloads, a failing canary): by e-mail (SMTP,
 * or the files under DATA_DIR/mail) and through their own ntfy or webhook
 * when they set one, whatever their per-event switches say
 * (docs/decisions/147-bot-check-pause.md, 153-ytdlp-canary.md). Never throws.
 */
export async function notifyAdmins(
  ctx: Pick<AppContext, 'db' | 'jobs' | 'mailer'>,
  message: { event?: AdminEvent; title: string; text: string; url?: string | null },
) {
  const event = message.event ?? 'admin.alert'
  try {
    const admins = await ctx.db
      .select({ id: users.id, email: users.email, ntfy: notificationSettings.ntfyUrl, webhook: notificationSettings.webhookUrl })
      .from(users)
      .leftJoin(notificationSettings, eq(notificationSettings.userId, users.id))
      .where(and(eq(users.admin, true), isNull(users.disabledAt)))
    const notification: Notification = { event, title: message.title, text: message.text, url: message.url ?? null, items: [] }
    for (const admin of admins) {
      if ((admin.ntfy || admin.webhook) && ctx.jobs) await ctx.jobs.enqueue(sendNotificationJob, { userId: admin.id, notification })
      await ctx.mailer
        .send({ to: admin.email, subject: `Tunefeed: ${message.title}`, text: message.url ? `${message.text}\n\n${message.url}\n` : `${message.text}\n` })
        .catch((err) => log.warn('admin mail not sent', { to: admin.email, ...errorFields(err) }))
    }
  } catch (err) {
    logNotifyError(err, { event })
  }
}
