import { eq, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { DEFAULT_SPONSORBLOCK, SPONSORBLOCK_ACTIONS, SPONSORBLOCK_CATEGORIES, type SponsorblockAction, type SponsorblockCategory } from './schema.ts'
import { youtubeSponsorblockSettings } from './tables.ts'

export type SponsorblockSettings = Record<SponsorblockCategory, SponsorblockAction>

/** The user's choices over the defaults (a stored value no longer valid falls back to the default). */
export async function getSponsorblock(db: Tx, userId: string): Promise<SponsorblockSettings> {
  const [row] = await db.select().from(youtubeSponsorblockSettings).where(eq(youtubeSponsorblockSettings.userId, userId))
  return sponsorblockOf(row?.categories)
}

/** Stored choices (or none) over the defaults. */
export function sponsorblockOf(stored: Record<string, string> | null | undefined): SponsorblockSettings {
  const out = { ...DEFAULT_SPONSORBLOCK }
  for (const c of SPONSORBLOCK_CATEGORIES) {
    const v = stored?.[c]
    if (v && (SPONSORBLOCK_ACTIONS as readonly string[]).includes(v)) out[c] = v as SponsorblockAction
  }
  return out
}

export async function saveSponsorblock(db: Tx, userId: string, change: Partial<SponsorblockSettings>): Promise<SponsorblockSettings> {
  const categories = { ...(await getSponsorblock(db, userId)) }
  for (const [k, v] of Object.entries(change)) if (v) categories[k as SponsorblockCategory] = v
  await db
    .insert(youtubeSponsorblockSettings)
    .values({ userId, categories })
    .onConflictDoUpdate({ target: youtubeSponsorblockSettings.userId, set: { categories, updatedAt: sql`now()` } })
  return categories
}
