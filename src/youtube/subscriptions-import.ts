import type { AppContext } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { hit } from '../lib/rate-limit.ts'
import type { YoutubeClient } from './client.ts'
import { ImportError, parseSubscriptionsFile } from './import.ts'
import { enqueueChannelRefresh } from './jobs.ts'
import { provider } from './provider.ts'
import { chargeUserUnits, firstRefreshUnits } from './quota.ts'
import { findChannelByHandle, storedChannelIds, upsertChannels } from './queries/channels.ts'
import { subscribe } from './queries/subscriptions.ts'
import type { ImportResult } from './schema.ts'

const IMPORT_MAX_CHANNELS = 5000
/** Handles cost a unit each to resolve (ids cost 1 per 50): an import resolves at most this many. */
const IMPORT_MAX_HANDLES = 100
const IMPORTS_PER_HOUR = 10

/**
 * Subscribes the user to every channel a subscriptions export names (see
 * import.ts for the formats). Limits are checked and every channel resolved
 * before anything is written, so a refusal or a quota stop leaves the
 * subscriptions as they were; channels newly subscribed are queued for refresh.
 */
export async function importSubscriptions(ctx: AppContext, userId: string, text: string, client: () => YoutubeClient): Promise<ImportResult> {
  await hit(ctx.db, `youtube-import:${userId}`, IMPORTS_PER_HOUR, 3600)
  let parsed
  try {
    parsed = parseSubscriptionsFile(text)
  } catch (err) {
    if (err instanceof ImportError) fail(422, err.message)
    throw err
  }
  if (parsed.refs.length > IMPORT_MAX_CHANNELS) fail(422, `The file lists more than ${IMPORT_MAX_CHANNELS} channels.`)
  const handles = parsed.refs.filter((r) => r.startsWith('@'))
  if (handles.length > IMPORT_MAX_HANDLES) fail(422, `The file names more than ${IMPORT_MAX_HANDLES} channels by handle only.`)

  // resolve everything first: a quota stop answers 503 with nothing written
  const found = new Map<string, string>() // ref -> channel id
  const ids = parsed.refs.filter((r) => !r.startsWith('@'))
  const stored = await storedChannelIds(ctx.db, ids)
  for (const id of stored) found.set(id, id)
  const missing = ids.filter((id) => !stored.has(id))
  // the user's share of the day pays for what this import makes the app fetch: resolving the
  // unknown channels and their first refresh (channels already stored cost nothing more)
  const handlesToResolve = (await Promise.all(handles.map((h) => findChannelByHandle(ctx.db, h)))).filter((row) => !row).length
  const newChannels = missing.length + handlesToResolve
  const units = Math.ceil(missing.length / 50) + handlesToResolve + newChannels * firstRefreshUnits(ctx.env.YOUTUBE_BACKFILL_VIDEOS)
  const left = await chargeUserUnits(ctx.db, userId, units, ctx.env.YOUTUBE_USER_DAILY_UNITS)
  if (left !== null)
    fail(
      429,
      `This import would take about ${units} YouTube units to load ${newChannels} new channels, and ${left} of your ${ctx.env.YOUTUBE_USER_DAILY_UNITS} for today are left: import fewer channels now and the rest tomorrow.`,
    )
  await provider(async () => {
    const channels = missing.length ? await client().channelsById(missing) : []
    for (const handle of handles) {
      const row = await findChannelByHandle(ctx.db, handle)
      if (row) {
        found.set(handle, row.id)
        continue
      }
      const ch = await client().channelByHandle(handle)
      if (ch) {
        channels.push(ch)
        found.set(handle, ch.id)
      }
    }
    await upsertChannels(ctx.db, channels)
    for (const ch of channels) if (!ch.handle || !found.has(ch.handle)) found.set(ch.id, ch.id)
  })
  const channelIds = [...new Set(found.values())]
  const added = await ctx.db.transaction(async (tx) => {
    const list: string[] = []
    for (const id of channelIds) if (await subscribe(tx, userId, id, 'manual')) list.push(id)
    return list
  })
  for (const id of added) await enqueueChannelRefresh(ctx, id)
  return {
    format: parsed.format,
    added: added.length,
    alreadyPresent: channelIds.length - added.length,
    notFound: parsed.refs.length - found.size + parsed.invalid,
  }
}
