import type { Hub } from './hub.ts'
import { errorFields, log } from '../lib/logger.ts'

/** The NOTIFY channel every app process on one database listens on. */
export const HUB_CHANNEL = 'tunefeed_hub'
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const MAX_PAYLOAD = 7900

interface Envelope {
  /** The publishing process, so it does not deliver its own message twice. */
  from: string
  topic: string
  message: unknown
}

/**
 * Cross-process WebSocket fan-out over PostgreSQL LISTEN/NOTIFY: what one app
 * process publishes on its hub reaches the sockets of every other process on
 * the same database (a job finished by process B reaches a browser connected
 * to process A). Delivery is at-most-once and in order per publisher, like
 * the sockets themselves; events are small (ids, states, progress).
 */
export async function attachPgBridge(hub: Hub, databaseUrl: string): Promise<{ close(): Promise<void> }> {
  const { default: postgres } = await import('postgres')
  // its own connection: LISTEN holds one for good
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  const self = crypto.randomUUID()
  const subscription = await sql.listen(HUB_CHANNEL, (payload) => {
    try {
      const { from, topic, message } = JSON.parse(payload) as Envelope
      if (from !== self) hub.receive(topic, message)
    } catch (err) {
      log.warn('hub bridge: bad notification', errorFields(err))
    }
  })
  const unlisten = hub.listen((topic, message, origin) => {
    if (origin !== 'local') return
    const payload = JSON.stringify({ from: self, topic, message } satisfies Envelope)
    if (payload.length > MAX_PAYLOAD) {
      log.warn('hub bridge: message too large for NOTIFY, delivered locally only', { topic, bytes: payload.length })
      return
    }
    sql.notify(HUB_CHANNEL, payload).catch((err) => log.warn('hub bridge: notify failed', { topic, ...errorFields(err) }))
  })
  return {
    async close() {
      unlisten()
      await subscription.unlisten().catch(() => {})
      await sql.end({ timeout: 5 })
    },
  }
}
