import type { AppContext } from '../../context.ts'
import { errorFields, log } from '../../lib/logger.ts'

/**
 * Jellyfin and Plex told after kept files come or go (docs/api.md "Keeping videos"): at most
 * once a minute per server; a change within the minute is told when the minute is over.
 * The key and token go only in the request's header, never in the status.
 */
export interface MediaServerStatus {
  kind: 'jellyfin' | 'plex'
  url: string
  ok: boolean | null
  notifiedAt: string | null
  lastError: string | null
}

export const NOTIFY_EVERY_MS = 60_000

interface Server {
  status: MediaServerStatus
  request: () => Request
  lastAt: number
  timer: ReturnType<typeof setTimeout> | null
}

const servers = new WeakMap<object, Server[]>()

function serversOf(ctx: AppContext): Server[] {
  let list = servers.get(ctx)
  if (list) return list
  list = []
  const { JELLYFIN_URL, JELLYFIN_API_KEY, PLEX_URL, PLEX_TOKEN } = ctx.env
  const base = (u: string) => u.replace(/\/+$/, '')
  if (JELLYFIN_URL)
    list.push({
      status: { kind: 'jellyfin', url: JELLYFIN_URL, ok: null, notifiedAt: null, lastError: null },
      request: () => new Request(`${base(JELLYFIN_URL)}/Library/Refresh`, { method: 'POST', headers: { Authorization: `MediaBrowser Token="${JELLYFIN_API_KEY ?? ''}"` } }),
      lastAt: 0,
      timer: null,
    })
  if (PLEX_URL)
    list.push({
      status: { kind: 'plex', url: PLEX_URL, ok: null, notifiedAt: null, lastError: null },
      request: () => new Request(`${base(PLEX_URL)}/library/sections/all/refresh`, { headers: { 'X-Plex-Token': PLEX_TOKEN ?? '' } }),
      lastAt: 0,
      timer: null,
    })
  servers.set(ctx, list)
  return list
}

async function tell(s: Server) {
  s.lastAt = Date.now()
  s.timer = null
  try {
    // the admin configured this address: it may be on the local network
    const res = await fetch(s.request(), { signal: AbortSignal.timeout(10_000), redirect: 'manual' })
    await res.body?.cancel()
    s.status.ok = res.ok
    s.status.lastError = res.ok ? null : `HTTP ${res.status}`
  } catch (err) {
    s.status.ok = false
    s.status.lastError = err instanceof Error ? err.message : String(err)
    log.warn('media server not told', { kind: s.status.kind, ...errorFields(err) })
  }
  s.status.notifiedAt = new Date(s.lastAt).toISOString()
}

/** Kept files changed: tell each server now, or when its minute is over. */
export function keptFilesChanged(ctx: AppContext): void {
  for (const s of serversOf(ctx)) {
    if (s.timer) continue
    const wait = s.lastAt + NOTIFY_EVERY_MS - Date.now()
    if (wait <= 0) void tell(s)
    else {
      s.timer = setTimeout(() => void tell(s), wait)
      s.timer.unref?.()
    }
  }
}

/** `mediaServers` of GET /api/admin/status. */
export const mediaServersStatus = (ctx: AppContext): MediaServerStatus[] => serversOf(ctx).map((s) => ({ ...s.status }))
