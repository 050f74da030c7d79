import { createHmac, randomBytes } from 'node:crypto'

/**
 * A WebSub hub stand-in on 127.0.0.1, written from the W3C Recommendation: a subscriber POSTs
 * `hub.mode`, `hub.topic`, `hub.callback`, `hub.secret`, `hub.lease_seconds` (§5.1); the hub
 * answers 202, then verifies intent with a GET to the callback carrying a random `hub.challenge`
 * (§5.3) and keeps the subscription only when the callback answers 2xx with the challenge echoed.
 * `publish` delivers a body to a topic's subscribers, signed with each one's secret (§8).
 */
export interface HubSubscription {
  topic: string
  callback: string
  secret: string | null
  leaseSeconds: number
  expiresAt: number
}

export interface HubRequest {
  mode: string
  topic: string
  callback: string
  secret: string | null
  leaseSeconds: number | null
  /** The callback's answer to the verification: status, and whether the challenge came back. */
  verified?: { status: number; echoed: boolean }
}

export interface WebsubHub {
  url: string
  requests: HubRequest[]
  subscriptions: Map<string, HubSubscription>
  /** Lease the hub grants (default: what was asked). */
  grantLeaseSeconds: number | null
  /** When false, the hub never verifies (a hub that lost the request). */
  verifies: boolean
  /** Resolves once every verification started so far has finished. */
  settled(): Promise<void>
  /** GETs the callback as a verification would, with any mode/topic (for refusals). */
  verify(callback: string, mode: string, topic: string, leaseSeconds?: number): Promise<{ status: number; body: string; challenge: string }>
  /** Delivers `body` to the topic's subscribers: the signature from `sign` (default: sha256 with their secret). */
  publish(topic: string, body: string, opts?: { algorithm?: 'sha1' | 'sha256' | 'sha384' | 'sha512'; signature?: string | null }): Promise<number[]>
  stop(): Promise<void>
}

const key = (callback: string, topic: string) => `${callback} ${topic}`

export function startWebsubHub(): WebsubHub {
  const pending = new Set<Promise<void>>()
  const verify: WebsubHub['verify'] = async (callback, mode, topic, leaseSeconds) => {
    const challenge = randomBytes(16).toString('hex')
    const url = new URL(callback)
    url.searchParams.set('hub.mode', mode)
    url.searchParams.set('hub.topic', topic)
    url.searchParams.set('hub.challenge', challenge)
    if (leaseSeconds !== undefined) url.searchParams.set('hub.lease_seconds', String(leaseSeconds))
    const res = await fetch(url)
    return { status: res.status, body: await res.text(), challenge }
  }
  const hub: WebsubHub = {
    url: '',
    requests: [],
    subscriptions: new Map(),
    grantLeaseSeconds: null,
    verifies: true,
    async settled() {
      while (pending.size) await Promise.all([...pending])
    },
    verify,
    async publish(topic, body, opts = {}) {
      const statuses: number[] = []
      for (const sub of hub.subscriptions.values()) {
        if (sub.topic !== topic || sub.expiresAt < Date.now()) continue
        const headers: Record<string, string> = { 'content-type': 'application/atom+xml', link: `<${hub.url}>; rel=hub, <${topic}>; rel=self` }
        const signature =
          opts.signature !== undefined ? opts.signature : sub.secret ? `${opts.algorithm ?? 'sha256'}=${createHmac(opts.algorithm ?? 'sha256', sub.secret).update(body).digest('hex')}` : null
        if (signature !== null) headers['x-hub-signature'] = signature
        const res = await fetch(sub.callback, { method: 'POST', body, headers })
        await res.arrayBuffer()
        statuses.push(res.status)
      }
      return statuses
    },
    async stop() {
      await hub.settled()
      await server.stop(true)
    },
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      if (req.method !== 'POST') return new Response('Method not allowed', { status: 405 })
      const form = new URLSearchParams(await req.text())
      const mode = form.get('hub.mode') ?? ''
      const topic = form.get('hub.topic') ?? ''
      const callback = form.get('hub.callback') ?? ''
      if (!['subscribe', 'unsubscribe'].includes(mode) || !topic || !URL.canParse(callback)) return new Response('Bad request', { status: 400 })
      const asked = Number(form.get('hub.lease_seconds'))
      const request: HubRequest = { mode, topic, callback, secret: form.get('hub.secret'), leaseSeconds: Number.isFinite(asked) && asked > 0 ? asked : null }
      hub.requests.push(request)
      if (hub.verifies) {
        const lease = hub.grantLeaseSeconds ?? request.leaseSeconds ?? 86_400
        const job = (async () => {
          const answer = await verify(callback, mode, topic, mode === 'subscribe' ? lease : undefined)
          const echoed = answer.status >= 200 && answer.status < 300 && answer.body === answer.challenge
          request.verified = { status: answer.status, echoed }
          if (!echoed) return
          if (mode === 'subscribe') {
            hub.subscriptions.set(key(callback, topic), { topic, callback, secret: request.secret, leaseSeconds: lease, expiresAt: Date.now() + lease * 1000 })
          } else hub.subscriptions.delete(key(callback, topic))
        })().catch(() => {})
        pending.add(job)
        void job.finally(() => pending.delete(job))
      }
      return new Response(null, { status: 202 })
    },
  })
  hub.url = `http://127.0.0.1:${server.port}/`
  return hub
}
