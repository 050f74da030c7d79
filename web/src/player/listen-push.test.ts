import { describe, expect, test } from 'bun:test'
import { QueryClient, QueryObserver } from '@tanstack/react-query'
import { queryKeys } from '~/lib/query-keys.ts'
import type { AudioStatus } from './listen.ts'
import { applyAudioMessage, audioCatchUp } from './listen-push.ts'

const ID = 'dQw4w9WgXcQ'

async function until(check: () => boolean, ms = 1000) {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await Bun.sleep(5)
}

describe('listen mode: readiness from the channel socket (docs/decisions/310)', () => {
  test('a pushed end becomes the audio state the player shows, at once; other videos and messages change nothing', () => {
    const client = new QueryClient()
    client.setQueryData<AudioStatus>(queryKeys.youtubeAudio.detail(ID), { state: 'fetching', error: null })
    applyAudioMessage(client, { id: 'UC1', updating: false })
    applyAudioMessage(client, { status: 'PING' })
    expect(client.getQueryData(queryKeys.youtubeAudio.detail(ID))).toEqual({ state: 'fetching', error: null })
    applyAudioMessage(client, { videoId: ID, audio: { state: 'ready', error: null } })
    expect(client.getQueryData(queryKeys.youtubeAudio.detail(ID))).toEqual({ state: 'ready', error: null })
    // a video this page never asked about is not added to the cache
    applyAudioMessage(client, { videoId: 'xxxxxxxxxxx', audio: { state: 'ready', error: null } })
    expect(client.getQueryState(queryKeys.youtubeAudio.detail('xxxxxxxxxxx'))).toBeUndefined()
  })

  test('when the socket opens, audio still shown as fetching is asked for again (an end may have been missed); ready audio is not', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: 60_000, retry: false } } })
    const asked: string[] = []
    const answers: Record<string, AudioStatus> = { [ID]: { state: 'fetching', error: null }, 'readyreadyy': { state: 'ready', error: null } }
    const observers = Object.keys(answers).map((id) => {
      const o = new QueryObserver(client, {
        queryKey: queryKeys.youtubeAudio.detail(id),
        queryFn: async () => {
          asked.push(id)
          return answers[id]!
        },
      })
      return o.subscribe(() => {})
    })
    await until(() => Object.keys(answers).every((id) => client.getQueryData(queryKeys.youtubeAudio.detail(id)) !== undefined))
    answers[ID] = { state: 'ready', error: null }
    audioCatchUp(client)
    await until(() => asked.length === 3)
    await Bun.sleep(20)
    expect(asked.sort()).toEqual([ID, ID, 'readyreadyy'].sort())
    expect(client.getQueryData(queryKeys.youtubeAudio.detail(ID))).toEqual({ state: 'ready', error: null })
    for (const off of observers) off()
  })
})
