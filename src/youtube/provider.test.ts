import { expect, test } from 'bun:test'
import { HTTPException } from 'hono/http-exception'
import { YOUTUBE_UNREACHABLE } from '../lib/unreachable.ts'
import { YoutubeApiError } from './client.ts'
import { provider } from './provider.ts'

// Provider trouble as a subscription request meets it (issue 37, minor 3): no route to YouTube
// (here a real refused connection on 127.0.0.1:9, where nothing listens) is said with the one
// sentence for it; YouTube answering with an error stays "try again later".
const answer = async (work: () => Promise<unknown>) => {
  const err = await provider(work).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(HTTPException)
  return { status: (err as HTTPException).status, detail: (err as HTTPException).message }
}

test('no route to YouTube: 502 with the sentence that says this server cannot reach it', async () => {
  expect(await answer(() => fetch('http://127.0.0.1:9/youtube/v3/channels'))).toEqual({ status: 502, detail: YOUTUBE_UNREACHABLE })
})

test('YouTube answered with an error: 502, try again later', async () => {
  expect(
    await answer(async () => {
      throw new YoutubeApiError(503, 'backendError', 'Backend Error')
    }),
  ).toEqual({ status: 502, detail: 'YouTube is unavailable, try again later.' })
})
