import { expect, test } from 'bun:test'
import { kindWords } from './job-kind.ts'

test("a job without a title is named in words, not with the Kind column's code", () => {
  expect(kindWords('youtube.podcastEpisode')).toBe('YouTube: podcast episode')
  expect(kindWords('music.run')).toBe('Music: run')
  expect(kindWords('mail.send')).toBe('Mail: send')
  expect(kindWords('cleanup')).toBe('Cleanup')
})
