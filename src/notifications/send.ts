import { and, eq, ilike, inArray, isNotNull, or } from 'drizzle-orm'
import type { AppContext } from '../context.ts'
import type { Db } from '../db/client.ts'
import type { Cipher } from '../lib/secret.ts'
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

/**
 * The stored URLs are sealed with the app's cipher, as the WebDAV password is
 * (decision 161). A value still in plain text (a row written before) is read
 * as it is; the start-up sweep (`sealPlainUrls`) seals those.
 */
const isPlain = (stored: string) => /^https?:\/\//i.test(stored)
async function open(cipher: Cipher, stored: string | null): Promise<string | null> {
  if (!stored) return null
  return isPlain(stored) ? stored : cipher.decrypt(stored)
}

/** The user's settings with the URLs in full: for sending only, never for an answer. */
export async function getSettings(db: Db, cipher: Cipher, userId: string): Promise<NotificationSettings> {
  const [row] = await db.select().from(notificationSettings).where(eq(notificationSettings.userId, userId))
  if (!row) return DEFAULT_SETTINGS
  const { onJobFinished, onJobFailed, onNewVideos } = row
  return { ntfyUrl: await open(cipher, row.ntfyUrl), webhookUrl: await open(cipher, row.webhookUrl), onJobFinished, onJobFailed, onNewVideos }
}

/** What an answer shows of a URL: its scheme and host (with a port), never the path, query or user part. */
export function maskUrl(url: string | null): string | null {
  if (!url) return null
  const parsed = URL.parse(url)
  return parsed ? `${parsed.protocol}//${parsed.host}` : null
}

/** The settings as GET and PUT answer them: URLs masked. */
export function maskedSettings(settings: NotificationSettings): NotificationSettings {
  return { ...settings, ntfyUrl: maskUrl(settings.ntfyUrl), webhookUrl: maskUrl(settings.webhookUrl) }
}

export async function saveSettings(db: Db, cipher: Cipher, userId: string, settings: NotificationSettings) {
  const seal = (url: string | null) => (url ? cipher.encrypt(url) : Promise.resolve(null))
  const values = { ...settings, ntfyUrl: await seal(settings.ntfyUrl), webhookUrl: await seal(settings.webhookUrl), updatedAt: new Date() }
  await db.insert(notificationSettings).values({ userId, ...values }).onConflictDoUpdate({ target: notificationSettings.userId, set: values })
}

/** Seals every URL still stored in plain text (run once at start-up); answers how many rows changed. */
export async function sealPlainUrls(db: Db, cipher: Cipher): Promise<number> {
  const t = notificationSettings
  const rows = await db
    .select({ userId: t.userId, ntfyUrl: t.ntfyUrl, webhookUrl: t.webhookUrl })
    .from(t)
    .where(or(ilike(t.ntfyUrl, 'http%'), ilike(t.webhookUrl, 'http%')))
  for (const row of rows) {
    const seal = async (v: string | null) => (v && isPlain(v) ? cipher.encrypt(v) : v)
    await db
      .update(t)
      .set({ ntfyUrl: await seal(row.ntfyUrl), webhookUrl: await seal(row.webhookUrl) })
      .where(eq(t.userId, row.userId))
  }
  return rows.length
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
  constructor(
    message: string,
    /** The target's HTTP status, when it answered. */
    readonly status: number | null = null,
  ) {
    super(message)
  }
}

/** A network failure said in words: refused, timed out, not found... (never the target's answer). */
function reasonOf(err: unknown): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'no answer within 10 s'
  const code = (err as { code?: string } | null)?.code ?? ''
  if (/ECONNREFUSED|ConnectionRefused/i.test(code) || /refused/i.test(String((err as Error)?.message))) return 'the connection was refused'
  if (/ENOTFOUND|EAI_AGAIN|DNS/i.test(code)) return 'the host was not found'
  // through the egress proxy a refused connection shows as a reset one: both said
  if (/ECONNRESET|ConnectionClosed|EPIPE/i.test(code)) return 'the connection was refused or closed before an answer'
  if (/CERT|TLS|SSL/i.test(code)) return 'its certificate was not accepted'
  return 'it could not be reached'
}

/** POSTs one message; answers the target's status. Its body is never read into a message (it may echo secrets). */
async function post(ctx: Pick<AppContext, 'allow'>, what: string, url: string, body: unknown): Promise<number> {
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
    throw new DeliveryFailed(`${what}: ${reasonOf(err)}.`)
  }
  await res.body?.cancel().catch(() => {})
  if (!res.ok) throw new DeliveryFailed(`${what} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}.`, res.status)
  return res.status
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
  return { url: url.toString(), body: { topic, title: n.title, message: text, ...(n.url ? { click: n.url } : {}), tags: [n.event === 'job.failed' || n.event === 'tools.canary' || n.event === 'admin.alert' ? 'warning' : 'bell'] } }
}

/** What one target did with a message: its status, or why it was not reached. */
export interface TargetResult {
  target: 'ntfy' | 'webhook'
  ok: boolean
  /** The HTTP status it answered; null when it did not answer. */
  status: number | null
  detail: string
}

/** Sends one message to every endpoint set; answers each target's result. */
export async function deliverEach(ctx: Pick<AppContext, 'allow'>, settings: NotificationSettings, n: Notification): Promise<TargetResult[]> {
  const results: TargetResult[] = []
  const attempt = async (target: TargetResult['target'], what: string, url: string, body: unknown) => {
    try {
      const status = await post(ctx, what, url, body)
      results.push({ target, ok: true, status, detail: `${what} answered ${status}.` })
    } catch (err) {
      if (!(err instanceof DeliveryFailed)) throw err
      results.push({ target, ok: false, status: err.status, detail: err.message })
    }
  }
  if (settings.ntfyUrl) {
    const req = ntfyRequest(settings.ntfyUrl, n)
    await attempt('ntfy', 'ntfy', req.url, req.body)
  }
  if (settings.webhookUrl) await attempt('webhook', 'Webhook', settings.webhookUrl, n)
  return results
}

/** Sends one message to every endpoint set; throws DeliveryFailed naming each one that failed. */
export async function deliver(ctx: Pick<AppContext, 'allow'>, settings: NotificationSettings, n: Notification) {
  const failures = (await deliverEach(ctx, settings, n)).filter((r) => !r.ok)
  if (failures.length) throw new DeliveryFailed(failures.map((f) => f.detail).join(' '))
}

/** Logged, never thrown: a notification must not fail what it reports on. */
export function logNotifyError(err: unknown, fields: Record<string, unknown>) {
  log.warn('notification not queued', { ...fields, ...errorFields(err) })
}
