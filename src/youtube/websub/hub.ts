import type { AppContext } from '../../context.ts'
import { guardedFetch } from '../../lib/guarded-fetch.ts'

/** Lease asked of the hub (it may grant another; renewal goes by what it granted). */
export const LEASE_SECONDS = 5 * 24 * 3600
const TIMEOUT_MS = 15_000

/** The channel's Atom feed, under the same base the refresh reads it from: the topic at the hub. */
export function topicUrl(env: { YOUTUBE_FEED_URL: string }, channelId: string): string {
  return `${env.YOUTUBE_FEED_URL.replace(/\/$/, '')}/feeds/videos.xml?channel_id=${encodeURIComponent(channelId)}`
}

export function callbackUrl(env: { PUBLIC_URL?: string }, token: string): string {
  return `${(env.PUBLIC_URL ?? '').replace(/\/$/, '')}/websub/${token}`
}

/**
 * Asks the hub to (un)subscribe (WebSub §5.1). The hub answers 202 and verifies later by a GET
 * to the callback; anything but 2xx is an error the status shows. Through the guarded fetch, so
 * a hub on a private address needs FETCH_ALLOW_HOSTS like every other outbound request.
 */
export async function askHub(
  ctx: Pick<AppContext, 'env' | 'allow'>,
  mode: 'subscribe' | 'unsubscribe',
  sub: { topic: string; token: string; secret: string },
): Promise<void> {
  const form = new URLSearchParams({
    'hub.mode': mode,
    'hub.topic': sub.topic,
    'hub.callback': callbackUrl(ctx.env, sub.token),
    'hub.verify': 'async',
  })
  if (mode === 'subscribe') {
    form.set('hub.secret', sub.secret)
    form.set('hub.lease_seconds', String(LEASE_SECONDS))
  }
  const res = await guardedFetch(ctx.env.WEBSUB_HUB_URL, {
    allow: ctx.allow,
    method: 'POST',
    body: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  })
  const text = (await res.text()).slice(0, 200)
  if (!res.ok) throw new Error(`the hub answered ${res.status} to ${mode}${text ? `: ${text}` : ''}`)
}
