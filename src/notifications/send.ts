import { and, eq, inArray, isNotNull, or } from 'drizzle-orm'
import type { AppContext } from '../context.ts'
import type { Db } from '../db/client.ts'
import { errorFields, log } from '../lib/logger.ts'
import { guardedFetch } from '../lib/guarded-fetch.ts'
import { UrlRefused } from '../lib/url-guard.ts'
import type { Notification, NotificationSettings } from './schema.ts'
import { notificationSettings } from './tables.ts'

const SEND_TIMEOUT_MS = 10_000
export const DEFAULT_SETTINGS: NotificationSettings = {
  ntfyUrl: null,
  webhookUrl: null,
  onJobFinished: true,
  onJobFailed: true,
  onNewVideos: true,
}

export async function getSettings(db: Db, userId: string): Promise<NotificationSettings> {
  const [row] = await db.select().from(notificationSettings).where(eq(notificationSettings.userId, userId))
  if (!row) return DEFAULT_SETTINGS
  const { ntfyUrl, webhookUrl, onJobFinished, onJobFailed, onNewVideos } = row
  return { ntfyUrl, webhookUrl, onJobFinished, onJobFailed, onNewVideos }
}

export async function saveSettings(db: Db, userId: string, settings: NotificationSettings) {
  const values = { ...settings, updatedAt: new Date() }
  await db.insert(notificationSettings).values({ userId, ...values }).onConflictDoUpdate({ target: notificationSettings.userId, set: values })
}

/** Users with an endpoint who want `flag`, among `userIds`. */
export async function wanting(db: Db, userIds: string[], flag: 'onJobFinished' | 'onJobFailed' | 'onNewVideos') {
  if (userIds.length === 0) return []
  const t = notificationSettings
  const rows = await db
    .select({ userId: t.userId })
    .from(t)
    .where(and(inArray(t.userId, userIds), eq(t[flag], true), or(isNotNull(t.ntfyUrl), isNotNull(t.webhookUrl))))
  return rows.map((r) => r.userId)
}

/** Thrown with the endpoint's own reason (status line or network error), said for a person. */
export class DeliveryFailed extends Error {
  override name = 'DeliveryFailed'
}

async function post(ctx: Pick<AppContext, 'allow'>, what: string, url: string, body: unknown) {
  let res: Response
  try {
    res = await guardedFetch(url, {
      allow: ctx.allow,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Tunefeed' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    })
  } catch (err) {
    if (err instanceof UrlRefused) throw new DeliveryFailed(`${what}: URL refused (${err.message}).`)
    const reason = err instanceof Error && err.name === 'TimeoutError' ? 'no answer within 10 s' : err instanceof Error ? err.message : String(err)
    throw new DeliveryFailed(`${what}: ${reason}.`)
  }
  const text = (await res.text().catch(() => '')).slice(0, 200).trim()
  if (!res.ok) throw new DeliveryFailed(`${what} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${text ? `: ${text}` : ''}.`)
}

/**
 * ntfy's JSON publishing: POST to the server's root with the topic in the body
 * (so titles need no header encoding), the topic being the URL's last segment.
 */
function ntfyRequest(topicUrl: string, n: Notification) {
  const url = new URL(topicUrl)
  const segments = url.pathname.split('/')
  const topic = segments.pop() || segments.pop() || ''
  url.pathname = `${segments.join('/')}/`
  url.search = ''
  const text = n.items.length ? `${n.text}\n${n.items.map((i) => `${i.title}: ${i.url}`).join('\n')}` : n.text
  return { url: url.toString(), body: { topic, title: n.title, message: text, ...(n.url ? { click: n.url } : {}), tags: [n.event === 'job.failed' || n.event === 'admin.alert' ? 'warning' : 'bell'] } }
}

/** Sends one message to every endpoint set; throws DeliveryFailed naming each one that failed. */
export async function deliver(ctx: Pick<AppContext, 'allow'>, settings: NotificationSettings, n: Notification) {
  const failures: string[] = []
  if (settings.ntfyUrl) {
    const req = ntfyRequest(settings.ntfyUrl, n)
    await post(ctx, 'ntfy', req.url, req.body).catch((err) => failures.push(err.message))
  }
  if (settings.webhookUrl) await post(ctx, 'Webhook', settings.webhookUrl, n).catch((err) => failures.push(err.message))
  if (failures.length) throw new DeliveryFailed(failures.join(' '))
}

/** Logged, never thrown: a notification must not fail what it reports on. */
export function logNotifyError(err: unknown, fields: Record<string, unknown>) {
  log.warn('notification not queued', { ...fields, ...errorFields(err) })
}
