import { Hono } from 'hono'
import type { AppContext, AppEnv } from '../context.ts'
import { currentUser, requireUser } from '../auth/session.ts'
import { fail } from '../lib/errors.ts'
import { checkUrl, UrlRefused } from '../lib/url-guard.ts'
import { hit } from '../lib/rate-limit.ts'
import { valid } from '../lib/validate.ts'
import { pageUrl } from '../lib/origin.ts'
import { notificationSettingsBody, type NotificationSettings } from './schema.ts'
import { deliverEach, getSettings, maskedSettings, maskUrl, saveSettings } from './send.ts'

const TESTS_PER_MINUTE = 10

/** Account → Notifications (docs/api.md, Account). */
export function notificationRoutes(ctx: AppContext) {
  const { db } = ctx
  return new Hono<AppEnv>()
    .use(requireUser)
    .get('/', async (c) => c.json(maskedSettings(await getSettings(db, ctx.cipher, currentUser(c).id)), 200))
    .put('/', valid('json', notificationSettingsBody), async (c) => {
      const body = c.req.valid('json')
      const userId = currentUser(c).id
      const stored = await getSettings(db, ctx.cipher, userId)
      const settings: NotificationSettings = { ...body, ntfyUrl: stored.ntfyUrl, webhookUrl: stored.webhookUrl }
      for (const field of ['ntfyUrl', 'webhookUrl'] as const) {
        const url = body[field]
        // left out, or sent back masked as GET shows it: the stored URL stays
        if (url === undefined || (url && url === maskUrl(stored[field]))) continue
        settings[field] = url
        if (!url) continue
        // through the outbound guard now, so a private address is refused when saved (and again when sent)
        try {
          await checkUrl(url, ctx.allow)
        } catch (err) {
          if (err instanceof UrlRefused) fail(422, `${field}: URL is not allowed (${err.message}).`)
          throw err
        }
      }
      await saveSettings(db, ctx.cipher, userId, settings)
      return c.json(maskedSettings(settings), 200)
    })
    .post('/test', async (c) => {
      const userId = currentUser(c).id
      // each test sends to a URL the user chose: at most 10 a minute per user
      await hit(db, `notifications-test:user:${userId}`, TESTS_PER_MINUTE, 60)
      const settings = await getSettings(db, ctx.cipher, userId)
      if (!settings.ntfyUrl && !settings.webhookUrl) fail(400, 'No notification URL is set.')
      const targets = await deliverEach(ctx, settings, {
        event: 'test',
        title: 'Tunefeed test',
        text: 'Notifications from your Tunefeed server reach you here.',
        url: pageUrl(ctx, '/account'),
        items: [],
      })
      // a target that failed: its status or the reason in words, never what it answered
      const failed = targets.filter((r) => !r.ok)
      if (failed.length) fail(400, failed.map((r) => r.detail).join(' '))
      return c.json({ detail: targets.map((r) => r.detail).join(' '), targets }, 200)
    })
}
