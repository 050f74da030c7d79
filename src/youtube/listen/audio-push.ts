import type { AppContext } from '../../context.ts'
import { type Hub, topics } from '../../ws/hub.ts'

/**
 * Listen mode's readiness pushed over the channel socket (docs/decisions/310): the end of a
 * video's audio fetch (ready, or failed with its sentence) reaches, at once, the people who asked
 * for that audio while it was fetched, as `{videoId, audio: {state, error}}` on their
 * `/api/youtube/channel/listen` socket. The player's poll stays as the fallback.
 *
 * The fetch ends in the job (on whichever process runs it): it publishes on AUDIO_TOPIC, which no
 * socket subscribes to and which the hub's bridge carries to every process. Each process tells
 * the people who asked it (POST answered `fetching`), and only them: no one learns what another
 * person listens to.
 */
export const AUDIO_TOPIC = 'youtube-audio'

export interface AudioEvent {
  videoId: string
  state: 'ready' | 'failed'
  error: string | null
}

/** A wait is forgotten after this long without an end (a lost job: the poll still covers it). */
const WAIT_MS = 15 * 60_000

class AudioWaiters {
  /** videoId → userId → when the wait is forgotten */
  private waits = new Map<string, Map<string, number>>()

  constructor(private hub: Hub) {
    hub.listen((topic, message) => {
      if (topic === AUDIO_TOPIC) this.ended(message as AudioEvent)
    })
  }

  add(videoId: string, userId: string) {
    const now = Date.now()
    // forgotten waits go whenever another is added: the map stays as small as the waits under way
    for (const [id, users] of this.waits) {
      for (const [user, until] of users) if (until < now) users.delete(user)
      if (!users.size) this.waits.delete(id)
    }
    const users = this.waits.get(videoId) ?? new Map<string, number>()
    users.set(userId, now + WAIT_MS)
    this.waits.set(videoId, users)
  }

  /** The wait of one person, when the answer it was added for was not `fetching` after all. */
  drop(videoId: string, userId: string) {
    const users = this.waits.get(videoId)
    users?.delete(userId)
    if (users && !users.size) this.waits.delete(videoId)
  }

  private ended({ videoId, state, error }: AudioEvent) {
    const users = this.waits.get(videoId)
    if (!users) return
    this.waits.delete(videoId)
    for (const userId of users.keys()) this.hub.publish(topics.channels(userId), { videoId, audio: { state, error } })
  }

  /** How many waits are held (tests). */
  get size() {
    let n = 0
    for (const users of this.waits.values()) n += users.size
    return n
  }
}

const byHub = new WeakMap<Hub, AudioWaiters>()

/** The waits of this process's hub (made, with its hub listener, at first use). */
export function audioWaiters(ctx: Pick<AppContext, 'hub'>): AudioWaiters {
  let waiters = byHub.get(ctx.hub)
  if (!waiters) {
    waiters = new AudioWaiters(ctx.hub)
    byHub.set(ctx.hub, waiters)
  }
  return waiters
}

/** The end of a fetch, from the job: to every process, which tells the people waiting for it. */
export function publishAudioEnd(ctx: Pick<AppContext, 'hub'>, event: AudioEvent) {
  ctx.hub.publish(AUDIO_TOPIC, event)
}
