import { describe, expect, test } from 'bun:test'
import { detailText } from './detail-text.ts'

describe('detailText', () => {
  test('a refused video link reads as words, with no raw field prefix', () => {
    expect(detailText('video_url: only http and https links can be used')).toBe('Video link: Only http and https links can be used')
    expect(detailText('artwork_url: the host nowhere.example was not found; check the link for typos')).toBe(
      'Artwork link: The host nowhere.example was not found; check the link for typos',
    )
    expect(detailText('video_categories: Invalid input')).toBe('Video categories: Invalid input')
  })

  test('other details stay as they are', () => {
    expect(detailText('Incorrect email or password.')).toBe('Incorrect email or password.')
    expect(detailText("'file' and 'video_url' cannot both be defined.")).toBe("'file' and 'video_url' cannot both be defined.")
    expect(detailText('Error: something')).toBe('Error: something')
  })
})
