import { describe, expect, test } from 'bun:test'
import { cards, fake, listSettled, noPageErrors, page, search, setUpVideoArea, shot, subscribeAndWait } from '../support/videos-e2e.ts'

// The list's Hide Watched / Hide Shorts / Hide Live checkboxes and its title search,
// kept in the URL and resetting the page; cards with their duration and a Live/Short badge.

setUpVideoArea()

const badges = (text: string) => page.locator('article[data-video-id]').getByText(text, { exact: true })

describe('video list filters in the browser', () => {
  test(
    'badges on cards; hide shorts, hide live and title words go into the URL and reset the page',
    async () => {
      const star = fake.channel('@star-lab')
      const arcade = fake.channel('@pixel-arcade')
      await subscribeAndWait('@star-lab', star.uploads.length)
      await subscribeAndWait('@pixel-arcade', arcade.uploads.length)
      const total = star.uploads.length + arcade.uploads.length
      await page.goto('/youtube/videos?perPage=12&page=2')
      await listSettled()
      await page.goto('/youtube/videos?perPage=100')
      await listSettled()
      expect(await cards().count()).toBe(total)
      expect(await badges('Short').count()).toBe(3)
      expect(await badges('Live').count()).toBe(1)
      expect(await badges('Upcoming').count()).toBe(1)
      // every clip of the fake lasts 30 s; streams show no duration
      expect(await page.locator('article[data-video-id] time[datetime="PT30S"]').count()).toBe(total - 2)
      await page.locator(`article[data-video-id="${arcade.uploads[2]}"]`).scrollIntoViewIfNeeded()
      await shot('videos-kinds-badges')

      await page.goto('/youtube/videos?perPage=12&page=2')
      await listSettled()
      await page.getByRole('checkbox', { name: 'Hide Shorts' }).check({ force: true })
      await page.waitForURL(() => search().get('hideShorts') === 'true')
      expect(search().get('page')).toBeNull()
      await page.getByRole('checkbox', { name: 'Hide Live' }).check({ force: true })
      await page.waitForURL(() => search().get('hideLive') === 'true')
      await page.goto(`/youtube/videos?perPage=100&hideShorts=true&hideLive=true`)
      await listSettled()
      expect(await cards().count()).toBe(total - 5)
      expect(await badges('Short').count()).toBe(0)
      expect(await badges('Live').count()).toBe(0)
      expect(await page.getByRole('checkbox', { name: 'Hide Shorts' }).isChecked()).toBe(true)

      // title words: typed, settled, in the URL; the list shows only matching titles
      const word = fake.videos.get(star.uploads[0]!)!.title.split(' ').at(-2)!
      await page.getByRole('searchbox', { name: 'Search titles' }).fill(word)
      await page.waitForURL(() => search().get('q') === word)
      await listSettled()
      const titles = await cards().evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))
      expect(titles.length).toBeGreaterThan(0)
      for (const title of titles) expect(title.toLowerCase()).toContain(word.toLowerCase())
      await shot('videos-filters')

      // nothing matches: said so; clearing the box brings the list back
      await page.getByRole('searchbox', { name: 'Search titles' }).fill('zzzz-no-such-title')
      await page.getByRole('searchbox', { name: 'Search titles' }).press('Enter')
      await page.getByText('No videos match.').waitFor()
      await page.getByRole('searchbox', { name: 'Search titles' }).fill('')
      await page.waitForURL(() => !search().has('q'))
      await listSettled()
      expect(await cards().count()).toBe(total - 5)
    },
    120_000,
  )
})

noPageErrors()
