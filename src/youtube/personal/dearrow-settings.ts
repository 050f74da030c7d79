import { eq, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { DEARROW_MODES, type DearrowMode } from './schema.ts'
import { youtubeDearrowSettings } from './tables.ts'

export async function getDearrowMode(db: Tx, userId: string): Promise<DearrowMode> {
  const [row] = await db.select({ mode: youtubeDearrowSettings.mode }).from(youtubeDearrowSettings).where(eq(youtubeDearrowSettings.userId, userId))
  return (DEARROW_MODES as readonly string[]).includes(row?.mode ?? '') ? (row!.mode as DearrowMode) : 'off'
}

export async function saveDearrowMode(db: Tx, userId: string, mode: DearrowMode): Promise<DearrowMode> {
  await db
    .insert(youtubeDearrowSettings)
    .values({ userId, mode })
    .onConflictDoUpdate({ target: youtubeDearrowSettings.userId, set: { mode, updatedAt: sql`now()` } })
  return mode
}
