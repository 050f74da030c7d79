import { albumLists } from './album-lists.ts'
import { annotation } from './annotation.ts'
import { bookmarks } from './bookmarks.ts'
import { browsing } from './browsing.ts'
import type { Method } from './call.ts'
import { lyrics } from './lyrics.ts'
import { mediaRetrieval } from './media-retrieval.ts'
import { playQueue } from './play-queue.ts'
import { playlists } from './playlists.ts'
import { podcasts } from './podcasts.ts'
import { scanning } from './scanning.ts'
import { searching } from './searching.ts'
import { system } from './system.ts'
import { users } from './users.ts'

export type { Call, Method } from './call.ts'

/** Every Subsonic method, by family as Navidrome's server/subsonic lays them out. */
export const METHODS: Record<string, Method> = {
  ...system,
  ...browsing,
  ...albumLists,
  ...searching,
  ...mediaRetrieval,
  ...lyrics,
  ...annotation,
  ...playlists,
  ...playQueue,
  ...bookmarks,
  ...users,
  ...scanning,
  ...podcasts,
}
