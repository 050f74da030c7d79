import type { FakeYoutube } from './server.ts'

/** Test and demo controls: not part of YouTube. */
export async function control(fake: FakeYoutube, req: Request, path: string, params: URLSearchParams): Promise<Response> {
  if (path === 'stats') return Response.json({ units: fake.units, calls: fake.calls, feedRequests: fake.feedRequests, watchRequests: fake.watchRequests, sponsorBlockRequests: fake.sponsorBlockRequests.length })
  if (path === 'channels') {
    return Response.json(
      [...fake.channels.values()].map((c) => ({ id: c.id, handle: c.handle, title: c.title, uploads: c.uploads.length })),
    )
  }
  if (req.method !== 'POST') return new Response('Method Not Allowed', { status: 405 })
  const m = /^channels\/([^/]+)\/uploads$/.exec(path)
  if (m) {
    const key = decodeURIComponent(m[1]!)
    const channel = key.startsWith('@') ? fake.channel(key) : fake.channels.get(key)
    if (!channel) return new Response('Not Found', { status: 404 })
    const added = fake.addUploads(channel.id, Number(params.get('count') ?? 1))
    return Response.json(added.map((v) => v.id))
  }
  if (path === 'quota') {
    const limit = params.get('limit')
    fake.quota = limit ? Number(limit) : null
    if (params.has('reset')) fake.units = 0
    return Response.json({ quota: fake.quota, units: fake.units })
  }
  if (path === 'fail') {
    fake.failNext(Number(params.get('count') ?? 1), Number(params.get('status') ?? 503))
    return Response.json({ ok: true })
  }
  return new Response('Not Found', { status: 404 })
}
