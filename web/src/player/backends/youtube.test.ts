import { afterEach, beforeEach, describe, expect, jest, test } from 'bun:test'
import type { BackendEvents, PlayerBackend } from './backend.ts'
import { createYoutubeBackend, PLAY_RETRIES, SETTLE_MS } from './youtube.ts'

// The IFrame backend against a scripted player: the API reference's states (loadVideoById:
// -1, 3, 1; cueVideoById: 5; 0 at the end; onError 100/101/150), delivered when the test says,
// with the browser's timers faked. What is checked is what the app sees (the events) and what
// the backend asks the player (load, playVideo, pauseVideo).

type Handlers = { onReady?: () => void; onStateChange?: (e: { data: number }) => void; onError?: (e: { data: number }) => void }

class ScriptedPlayer {
  state = -1
  calls: string[] = []
  destroyed = false
  constructor(
    _el: unknown,
    private opts: { events?: Handlers },
  ) {
    players.push(this)
  }
  loadVideoById(a: { videoId: string }) {
    this.calls.push(`load ${a.videoId}`)
  }
  cueVideoById(a: { videoId: string }) {
    this.calls.push(`cue ${a.videoId}`)
  }
  playVideo() {
    this.calls.push('play')
  }
  pauseVideo() {
    this.calls.push('pause')
  }
  seekTo() {}
  muted = false
  mute() {
    this.muted = true
    this.calls.push('mute')
  }
  unMute() {
    this.muted = false
    this.calls.push('unMute')
  }
  isMuted() {
    return this.muted
  }
  getCurrentTime() {
    return 0
  }
  getDuration() {
    return 60
  }
  getPlayerState() {
    return this.state
  }
  destroy() {
    this.destroyed = true
  }
  ready() {
    this.opts.events!.onReady!()
  }
  /** The embed reports states, in order. */
  emit(...states: number[]) {
    for (const s of states) {
      this.state = s
      this.opts.events!.onStateChange!({ data: s })
    }
  }
  error(code: number) {
    this.opts.events!.onError!({ data: code })
  }
  plays() {
    return this.calls.filter((c) => c === 'play').length
  }
}

let players: ScriptedPlayer[] = []
/** The iframe the player put in the page, and whether the viewer's focus is in it. */
const iframe = { tagName: 'IFRAME' }
let focused: unknown = null

const g = globalThis as Record<string, unknown>
beforeEach(() => {
  players = []
  focused = null
  g.window = { YT: { Player: ScriptedPlayer }, location: { origin: 'http://127.0.0.1' } }
  g.document = {
    createElement: () => ({ remove() {} }),
    get activeElement() {
      return focused
    },
  }
  jest.useFakeTimers()
})
afterEach(() => {
  jest.useRealTimers()
  delete g.window
  delete g.document
})

async function start() {
  const seen: string[] = []
  const events: BackendEvents = {
    onReady: () => seen.push('ready'),
    onPlay: () => seen.push('play'),
    onPause: () => seen.push('pause'),
    onEnded: () => seen.push('ended'),
    onError: (m) => seen.push(`error: ${m}`),
  }
  const host = { appendChild() {}, replaceChildren() {}, contains: (n: unknown) => n === iframe }
  const backend: PlayerBackend = createYoutubeBackend(host as unknown as HTMLElement, events)
  await Promise.resolve()
  await Promise.resolve()
  const player = players[0]!
  player.ready()
  return { backend, player, seen }
}
const video = (id: string) => ({ id, mediaUrl: null })
const wait = (ms: number) => jest.advanceTimersByTime(ms)

describe('IFrame backend (docs/decisions/092)', () => {
  test('a load meant to play that stays unstarted gets playVideo again, at most PLAY_RETRIES times', async () => {
    const { backend, player } = await start()
    backend.load(video('aaaaaaaaaaa'), 0, true)
    player.emit(-1)
    wait(SETTLE_MS * 10)
    expect(player.plays()).toBe(PLAY_RETRIES)
  })

  test("a superseded load's PLAYING, PAUSED and ENDED are ignored; the new one's states reach the app", async () => {
    const { backend, player, seen } = await start()
    backend.load(video('aaaaaaaaaaa'), 0, true)
    player.emit(-1, 3, 1)
    backend.pause()
    backend.load(video('bbbbbbbbbbb'), 0, true)
    seen.length = 0
    player.emit(1, 2, 0)
    expect(seen).toEqual([])
    player.emit(-1, 3, 1)
    expect(seen).toEqual(['ready', 'play'])
    player.emit(0)
    expect(seen).toEqual(['ready', 'play', 'ended'])
    wait(SETTLE_MS * 10)
    expect(player.plays()).toBe(0)
  })

  test('the same video loaded again with no UNSTARTED: its states count after SETTLE_MS of quiet, and its end is seen', async () => {
    const { backend, player, seen } = await start()
    backend.load(video('aaaaaaaaaaa'), 0, true)
    player.emit(-1, 3, 1)
    backend.load(video('aaaaaaaaaaa'), 0, true)
    seen.length = 0
    wait(SETTLE_MS)
    expect(seen).toEqual(['ready', 'play'])
    player.emit(0)
    expect(seen).toEqual(['ready', 'play', 'ended'])
    wait(SETTLE_MS * 10)
    expect(player.plays()).toBe(0)
  })

  test("the app's pause (keyboard, Media Session) is never undone, before or after the load began", async () => {
    const { backend, player } = await start()
    backend.load(video('aaaaaaaaaaa'), 0, true)
    backend.pause()
    player.emit(-1, 3, 2)
    wait(SETTLE_MS * 10)
    backend.play()
    player.emit(1)
    backend.pause()
    player.emit(2)
    wait(SETTLE_MS * 10)
    expect(player.plays()).toBe(1)
  })

  test("the viewer's pause in the embed after the video played is left alone", async () => {
    const { backend, player, seen } = await start()
    backend.load(video('aaaaaaaaaaa'), 0, true)
    player.emit(-1, 3, 1, 2)
    wait(SETTLE_MS * 10)
    expect(player.plays()).toBe(0)
    expect(seen).toEqual(['ready', 'play', 'pause'])
  })

  test("the viewer's pause in the embed while the video first buffers is left alone (the focus is in the embed)", async () => {
    const { backend, player } = await start()
    backend.load(video('aaaaaaaaaaa'), 0, true)
    player.emit(-1, 3)
    focused = iframe // the viewer clicked into the embed
    player.emit(2)
    wait(SETTLE_MS * 10)
    expect(player.plays()).toBe(0)
  })

  test('a load that settles paused before it played, with the focus on the page, is still played again', async () => {
    const { backend, player } = await start()
    backend.load(video('aaaaaaaaaaa'), 0, true)
    player.emit(-1, 3, 2)
    wait(SETTLE_MS * 10)
    expect(player.plays()).toBe(PLAY_RETRIES)
  })

  test('an error is reported in words and nothing is retried after it', async () => {
    const { backend, player, seen } = await start()
    backend.load(video('aaaaaaaaaaa'), 0, true)
    player.emit(-1)
    player.error(150)
    wait(SETTLE_MS * 10)
    expect(seen).toEqual(['error: The owner does not allow playing this video here'])
    expect(player.plays()).toBe(0)
  })

  test('destroy stops the timers and the player', async () => {
    const { backend, player } = await start()
    backend.load(video('aaaaaaaaaaa'), 0, true)
    player.emit(-1)
    backend.destroy()
    wait(SETTLE_MS * 10)
    expect(player.plays()).toBe(0)
    expect(player.destroyed).toBe(true)
  })
})

describe('IFrame backend: setMuted (SponsorBlock mute segments)', () => {
  test('mutes for the span and gives the sound back; an embed muted before stays muted', async () => {
    const { backend, player } = await start()
    backend.setMuted(true)
    backend.setMuted(true)
    expect(player.muted).toBe(true)
    backend.setMuted(false)
    expect(player.muted).toBe(false)
    expect(player.calls.filter((c) => c === 'mute' || c === 'unMute')).toEqual(['mute', 'mute', 'unMute'])
    // muted by the viewer (or the browser) before: the span's end leaves it muted
    player.muted = true
    backend.setMuted(true)
    backend.setMuted(false)
    expect(player.muted).toBe(true)
    // nothing muted by it: false changes nothing
    player.muted = false
    backend.setMuted(false)
    expect(player.muted).toBe(false)
  })
})
