import type { AppContext } from '../context.ts'
import { topics } from '../ws/hub.ts'
import type { MusicJobEvent } from './schema.ts'

/** A music job's state change, pushed to its owner's sockets (docs/api.md, the music socket). */
export function publishMusicEvent(ctx: Pick<AppContext, 'hub'>, userId: string, event: MusicJobEvent) {
  ctx.hub.publish(topics.musicJobs(userId), event)
}
