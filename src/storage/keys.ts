import { and, eq, isNotNull } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { keptNames, jobKey, jobPrefix } from '../music/stored.ts'
import { musicJobs } from '../music/tables.ts'
import { youtubeAudio, youtubePodcastEpisodes } from '../youtube/listen/tables.ts'
import type { Store } from './types.ts'

/** The folders (key prefixes) under which the app keeps files. */
export const KEPT_ROOTS = ['music/', 'audio/'] as const

/**
 * Every key the database names (finished music jobs' files, ready listen-mode audio and podcast
 * episodes), and the prefixes of passing work the store may hold meanwhile (unfinished jobs).
 */
export async function expectedKeys(db: Db): Promise<{ keys: Set<string>; passing: string[] }> {
  const keys = new Set<string>()
  const passing: string[] = []
  const jobs = await db
    .select({ id: musicJobs.id, userId: musicJobs.userId, completed: musicJobs.completed, uploadFile: musicJobs.uploadFile, artworkFile: musicJobs.artworkFile, outputFile: musicJobs.outputFile, tracks: musicJobs.tracks })
    .from(musicJobs)
  for (const j of jobs) {
    if (!j.completed) passing.push(jobPrefix(j.userId, j.id))
    else for (const name of keptNames(j)) keys.add(jobKey(j.userId, j.id, name))
  }
  for (const a of await db.select({ file: youtubeAudio.file }).from(youtubeAudio).where(and(eq(youtubeAudio.state, 'ready'), isNotNull(youtubeAudio.file))))
    keys.add(`audio/${a.file}`)
  for (const e of await db
    .select({ file: youtubePodcastEpisodes.file })
    .from(youtubePodcastEpisodes)
    .where(and(eq(youtubePodcastEpisodes.state, 'ready'), isNotNull(youtubePodcastEpisodes.file))))
    keys.add(`audio/podcast/${e.file}`)
  return { keys, passing }
}

/** Not a kept file: work folders and temporary names (a segment starting with `.`), scaled cover caches. */
const isCacheOrWork = (key: string) => key.split('/').some((s) => s.startsWith('.')) || /^music\/[^/]+\/[^/]+\/(covers|work|edit-[^/]+)\//.test(key) || key.endsWith('.before-edit')

/** The differences between the database and the store: `missing` (named, not stored) and `stray` (stored, named by no row). */
export async function compareStore(db: Db, store: Store): Promise<{ missing: string[]; stray: string[] }> {
  const { keys, passing } = await expectedKeys(db)
  const stored = new Set<string>()
  for (const root of KEPT_ROOTS) for await (const o of store.list(root)) stored.add(o.key)
  const missing = [...keys].filter((k) => !stored.has(k)).sort()
  const stray = [...stored].filter((k) => !keys.has(k) && !isCacheOrWork(k) && !passing.some((p) => k.startsWith(p))).sort()
  return { missing, stray }
}
