import { Hono } from 'hono'
import type { AppContext, AppEnv } from '../context.ts'
import { currentUser, requireUser } from '../auth/session.ts'
import { fail } from '../lib/errors.ts'
import { checkUrl, UrlRefused } from '../lib/url-guard.ts'
import { valid } from '../lib/validate.ts'
import { pageUrl } from './jobs.ts'
import { notificationSettingsBody, type NotificationSettings } from './schema.ts'
import { deliver, DeliveryFailed, getSettings, saveSettings } from './send.ts'

/** Account → Notifications (docs/api.md, Account). */
export function notificationRoutes(ctx: AppContext) {
  const { db } = ctx
  return new Hono<AppEnv>()
    .use(requireUser)
    .get('/', async (c) => c.json(await getSettings(db, currentUser(c).id), 200))
    .put('/', valid('json', notificationSettingsBody), async (c) => {
      const settings: NotificationSettings = c.req.valid('json')
      // through the outbound guard now, so a private address is refused when saved (and again when sent)
      for (const field of ['ntfyUrl', 'webhookUrl'] as const) {
        const url = settings[field]
        if (!url) continue
        try {
          await checkUrl(url, ctx.allow)
        } catch (err) {
          if (err instanceof UrlRefused) fail(422, `${field}: URL is not allowed (${err.message}).`)
          throw err
        }
      }
      await saveSettings(db, currentUser(c).id, settings)
      return c.json(settings, 200)
    })
    .post('/test', async (c) => {
      const settings = await getSettings(db, currentUser(c).id)
      if (!settings.ntfyUrl && !settings.webhookUrl) fail(400, 'No notification URL is set.')
      try {
        await deliver(ctx, settings, {
          event: 'test',
          title: 'Tunefeed test',
          text: 'Notifications from your Tunefeed server reach you here.',
          url: pageUrl(ctx, '/account'),
          items: [],
        })
      } catch (err) {
        if (err instanceof DeliveryFailed) fail(400, err.message)
        throw err
      }
      return c.body(null, 204)
    })
}
