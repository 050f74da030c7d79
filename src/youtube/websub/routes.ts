import { and, eq, isNull, lt, or, sql } from 'drizzle-orm'
import { Hono } from 'hono'
import type { AppContext } from '../../context.ts'
import { log } from '../../lib/logger.ts'
import { enqueueChannelRefresh } from '../jobs.ts'
import { signatureValid } from './signature.ts'
import { youtubeWebsub } from './tables.ts'

/** A push queues a channel's refresh at most this often, however many arrive. */
const PUSH_REFRESH_EVERY_MS = 60_000

const notFound = () => new Response('Not found.', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } })

/**
 * The hub's callbacks, outside /api and without sign-in: the random token in the path names
 * the subscription. GET is the verification of intent, POST a notification (bodies over 64 KB
 * are refused before this, src/app.ts).
 */
export function websubRoutes(ctx: AppContext) {
  return new Hono()
    .get('/:token', async (c) => {
      const [row] = await ctx.db.select().from(youtubeWebsub).where(eq(youtubeWebsub.token, c.req.param('token')))
      const mode = c.req.query('hub.mode')
      const topic = c.req.query('hub.topic')
      const challenge = c.req.query('hub.challenge')
      if (!row || topic !== row.topic) return notFound()
      if (mode === 'denied') {
        // the hub refused (or ended) the subscription: said in the status, asked again later
        const reason = c.req.query('hub.reason')
        await ctx.db
          .update(youtubeWebsub)
          .set({ lastError: `the hub denied the subscription${reason ? `: ${reason.slice(0, 200)}` : ''}` })
          .where(eq(youtubeWebsub.channelId, row.channelId))
        return c.body(null, 200)
      }
      if (!challenge) return notFound()
      if (mode === 'subscribe' && row.state !== 'unsubscribing') {
        const granted = Number(c.req.query('hub.lease_seconds'))
        const lease = Number.isInteger(granted) && granted > 0 ? granted : null
        const now = new Date()
        await ctx.db
          .update(youtubeWebsub)
          .set({
            state: 'active',
            verifiedAt: now,
            leaseSeconds: lease,
            // a hub that names no lease: treated as a day, renewed at 80 % of it
            leaseExpiresAt: new Date(now.getTime() + (lease ?? 86_400) * 1000),
            lastError: null,
          })
          .where(and(eq(youtubeWebsub.channelId, row.channelId), eq(youtubeWebsub.token, row.token)))
      } else if (mode === 'unsubscribe' && row.state === 'unsubscribing') {
        await ctx.db.delete(youtubeWebsub).where(and(eq(youtubeWebsub.channelId, row.channelId), eq(youtubeWebsub.state, 'unsubscribing')))
      } else return notFound()
      return c.text(challenge, 200)
    })
    .post('/:token', async (c) => {
      const [row] = await ctx.db.select().from(youtubeWebsub).where(eq(youtubeWebsub.token, c.req.param('token')))
      if (!row) return notFound()
      const body = new Uint8Array(await c.req.arrayBuffer())
      // a forged or unsigned delivery is answered like a good one (the hub is not told which) and changes nothing
      if (row.state === 'unsubscribing' || !signatureValid(c.req.header('x-hub-signature'), body, row.secret)) {
        log.info('websub notification ignored', { channelId: row.channelId, reason: row.state === 'unsubscribing' ? 'unsubscribing' : 'signature' })
        return c.body(null, 202)
      }
      // the body only says "look again": the channel is re-read as a follow would, once a minute at most
      const [claimed] = await ctx.db
        .update(youtubeWebsub)
        .set({ lastPushAt: sql`now()`, lastQueuedAt: sql`now()` })
        .where(
          and(
            eq(youtubeWebsub.channelId, row.channelId),
            or(isNull(youtubeWebsub.lastQueuedAt), lt(youtubeWebsub.lastQueuedAt, new Date(Date.now() - PUSH_REFRESH_EVERY_MS))),
          ),
        )
        .returning({ channelId: youtubeWebsub.channelId })
      if (claimed) await enqueueChannelRefresh(ctx, row.channelId)
      else await ctx.db.update(youtubeWebsub).set({ lastPushAt: sql`now()` }).where(eq(youtubeWebsub.channelId, row.channelId))
      return c.body(null, 202)
    })
}
