import type { ServerWebSocket } from 'bun'
import type { Context } from 'hono'
import { upgradeWebSocket } from 'hono/bun'
import { currentUser, sessionAlive } from '../auth/session.ts'
import type { AppContext, AppEnv, SessionUser } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { isOwnOrigin } from '../lib/origin.ts'
import { CLOSE_SESSION_ENDED, type TrackedSocket } from './hub.ts'

/**
 * The GET handler of a `listen` socket (after requireUser): upgrades, subscribes
 * the socket to the user's topic (src/ws/hub.ts), pings every WS_PING_SECONDS
 * so proxies keep it open, and counts it in `hub.clients`. A page on another
 * site must not open a socket with the user's cookie: a foreign Origin is refused.
 * The socket ends with its session (4001 `Session ended`): at once on logout or
 * reset through this process (the hub closes it), else at the next ping, which
 * checks the session first.
 */
export function listenRoute(ctx: AppContext, topicOf: (user: SessionUser) => string) {
  return upgradeWebSocket((c: Context<AppEnv>) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') fail(426, 'Expected a WebSocket upgrade.')
    const origin = c.req.header('origin')
    if (origin && !isOwnOrigin(origin, c.req, ctx.env.TRUST_PROXY)) fail(403, 'Cross-origin request refused.')
    const user = currentUser(c)
    const topic = topicOf(user)
    const sessionId = c.get('sessionId')
    let ping: ReturnType<typeof setInterval> | undefined
    let tracked: TrackedSocket | undefined
    return {
      onOpen(_event, ws) {
        ;(ws.raw as ServerWebSocket<unknown>).subscribe(topic)
        ctx.hub.clients++
        tracked = { userId: user.id, sessionId, close: (code, reason) => ws.close(code, reason) }
        ctx.hub.track(tracked)
        // each ping re-checks the session: a logout or reset on another process closes the socket here
        ping = setInterval(async () => {
          if (sessionId && !(await sessionAlive(ctx.db, sessionId).catch(() => true))) {
            ctx.hub.untrack(tracked!)
            return ws.close(CLOSE_SESSION_ENDED, 'Session ended')
          }
          ws.send(JSON.stringify({ status: 'PING' }))
        }, ctx.env.WS_PING_SECONDS * 1000)
      },
      onClose() {
        clearInterval(ping)
        if (tracked) ctx.hub.untrack(tracked)
        ctx.hub.clients--
      },
    }
  })
}
