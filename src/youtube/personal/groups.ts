import { and, asc, eq, inArray, isNull } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { fail } from '../../lib/errors.ts'
import { youtubeSubscriptions } from '../tables.ts'
import { youtubeGroupChannels, youtubeGroups } from './tables.ts'

// Groups of channels: a person's own, each a filter on the feed (docs/decisions/250).

export interface GroupJson {
  id: string
  name: string
  channelIds: string[]
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The groups' channels that the user still follows (one unfollowed stays in the group, unlisted, should it come back). */
async function channelsOf(db: Tx, userId: string, groupIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(groupIds.map((id) => [id, []]))
  if (!groupIds.length) return out
  const s = youtubeSubscriptions
  const rows = await db
    .select({ groupId: youtubeGroupChannels.groupId, channelId: youtubeGroupChannels.channelId })
    .from(youtubeGroupChannels)
    .innerJoin(s, and(eq(s.channelId, youtubeGroupChannels.channelId), eq(s.userId, userId), isNull(s.deletedAt)))
    .where(inArray(youtubeGroupChannels.groupId, groupIds))
    .orderBy(asc(youtubeGroupChannels.position))
  for (const r of rows) out.get(r.groupId)?.push(r.channelId)
  return out
}

export async function listGroups(db: Tx, userId: string): Promise<GroupJson[]> {
  const groups = await db
    .select({ id: youtubeGroups.id, name: youtubeGroups.name })
    .from(youtubeGroups)
    .where(eq(youtubeGroups.userId, userId))
    .orderBy(asc(youtubeGroups.createdAt), asc(youtubeGroups.id))
  const channels = await channelsOf(
    db,
    userId,
    groups.map((g) => g.id),
  )
  return groups.map((g) => ({ ...g, channelIds: channels.get(g.id) ?? [] }))
}

/** The user's group, or 404 `Group not found.` (also for another user's or a malformed id). */
export async function requireGroup(db: Tx, userId: string, id: string): Promise<GroupJson> {
  const [row] = UUID.test(id)
    ? await db
        .select({ id: youtubeGroups.id, name: youtubeGroups.name })
        .from(youtubeGroups)
        .where(and(eq(youtubeGroups.id, id), eq(youtubeGroups.userId, userId)))
    : []
  if (!row) fail(404, 'Group not found.')
  return { ...row, channelIds: (await channelsOf(db, userId, [row.id])).get(row.id) ?? [] }
}

/** 422 naming channelIds unless the user follows every one; duplicates dropped, order kept. */
async function followedOnly(db: Tx, userId: string, channelIds: string[]): Promise<string[]> {
  const ids = [...new Set(channelIds)]
  if (!ids.length) return ids
  const rows = await db
    .select({ id: youtubeSubscriptions.channelId })
    .from(youtubeSubscriptions)
    .where(and(eq(youtubeSubscriptions.userId, userId), isNull(youtubeSubscriptions.deletedAt), inArray(youtubeSubscriptions.channelId, ids)))
  const followed = new Set(rows.map((r) => r.id))
  const stranger = ids.find((id) => !followed.has(id))
  if (stranger) fail(422, `channelIds: ${stranger} is not a channel you follow`)
  return ids
}

async function setChannels(db: Tx, groupId: string, ids: string[]) {
  await db.delete(youtubeGroupChannels).where(eq(youtubeGroupChannels.groupId, groupId))
  if (ids.length) await db.insert(youtubeGroupChannels).values(ids.map((channelId, position) => ({ groupId, channelId, position })))
}

/** Most groups one person may have. */
export const GROUPS_MAX = 100

export async function createGroup(db: Tx, userId: string, name: string, channelIds: string[]): Promise<GroupJson> {
  const ids = await followedOnly(db, userId, channelIds)
  const existing = await db.select({ id: youtubeGroups.id }).from(youtubeGroups).where(eq(youtubeGroups.userId, userId))
  if (existing.length >= GROUPS_MAX) fail(422, `name: at most ${GROUPS_MAX} groups`)
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(youtubeGroups).values({ userId, name }).returning({ id: youtubeGroups.id })
    await setChannels(tx, row!.id, ids)
    return { id: row!.id, name, channelIds: ids }
  })
}

export async function updateGroup(db: Tx, userId: string, id: string, change: { name?: string; channelIds?: string[] }): Promise<GroupJson> {
  const group = await requireGroup(db, userId, id)
  const ids = change.channelIds ? await followedOnly(db, userId, change.channelIds) : null
  await db.transaction(async (tx) => {
    if (change.name !== undefined) await tx.update(youtubeGroups).set({ name: change.name }).where(eq(youtubeGroups.id, id))
    if (ids) await setChannels(tx, id, ids)
  })
  return { id, name: change.name ?? group.name, channelIds: ids ?? group.channelIds }
}

export async function deleteGroup(db: Tx, userId: string, id: string) {
  await requireGroup(db, userId, id)
  await db.delete(youtubeGroups).where(eq(youtubeGroups.id, id))
}
