import type { ServerWebSocket } from 'bun'
import type { Context } from 'hono'
import { upgradeWebSocket } from 'hono/bun'
import { currentUser } from '../auth/session.ts'
import type { AppContext, AppEnv, SessionUser } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { isOwnOrigin } from '../lib/origin.ts'

/**
 * The GET handler of a `listen` socket (after requireUser): upgrades, subscribes
 * the socket to the user's topic (src/ws/hub.ts), pings every WS_PING_SECONDS
 * so proxies keep it open, and counts it in `hub.clients`. A page on another
 * site must not open a socket with the user's cookie: a foreign Origin is refused.
 */
export function listenRoute(ctx: AppContext, topicOf: (user: SessionUser) => string) {
  return upgradeWebSocket((c: Context<AppEnv>) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') fail(426, 'Expected a WebSocket upgrade.')
    const origin = c.req.header('origin')
    if (origin && !isOwnOrigin(origin, c.req, ctx.env.TRUST_PROXY)) fail(403, 'Cross-origin request refused.')
    const topic = topicOf(currentUser(c))
    let ping: ReturnType<typeof setInterval> | undefined
    return {
      onOpen(_event, ws) {
        ;(ws.raw as ServerWebSocket<unknown>).subscribe(topic)
        ctx.hub.clients++
        ping = setInterval(() => ws.send(JSON.stringify({ status: 'PING' })), ctx.env.WS_PING_SECONDS * 1000)
      },
      onClose() {
        clearInterval(ping)
        ctx.hub.clients--
      },
    }
  })
}
