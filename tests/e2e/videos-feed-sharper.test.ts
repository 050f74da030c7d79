import { describe, expect, test } from 'bun:test'
import { axeFindings } from '../support/axe.ts'
import { startFakeDearrow, title, type FakeDearrow } from '../support/dearrow.ts'
import { DESKTOP, PHONE, api, card, cards, fake, listSettled, noPageErrors, page, search, setUpVideoArea, shot, subscribeAndWait } from '../support/videos-e2e.ts'

// The feed, sharper, in the browser: group chips above the list (made on Subscriptions), muted
// words with what each hides (Account → Feed), DeArrow titles with the original one press away.
// Keyboard and phone width; axe: no serious finding.

let dearrow: FakeDearrow
setUpVideoArea({
  bypassCSP: true,
  env: async () => {
    dearrow = startFakeDearrow()
    return { DEARROW_URL: dearrow.url, DEARROW_THUMB_URL: dearrow.thumbUrl }
  },
})

type List = { videos: { id: string; title: string; channel: { id: string } }[]; totalPages: number }

describe('groups, muted words and DeArrow in the browser', () => {
  test(
    'a group made on Subscriptions is a chip above the feed, chosen by keyboard, at phone width too',
    async () => {
      const kitchen = fake.channel('@tiny-kitchen')
      const star = fake.channel('@star-lab')
      await subscribeAndWait('@tiny-kitchen', kitchen.uploads.length)
      await subscribeAndWait('@star-lab', star.uploads.length)

      await page.goto('/youtube/subscriptions')
      await page.getByRole('button', { name: 'New group' }).click()
      const dialog = page.getByRole('dialog', { name: 'New group' })
      await dialog.getByLabel('Name').fill('Kitchen')
      await dialog.getByRole('checkbox', { name: 'Tiny Kitchen' }).check({ force: true })
      await dialog.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('list', { name: 'Your groups' }).getByText('Kitchen').waitFor()
      expect(await page.getByRole('list', { name: 'Your groups' }).getByText('1 channel').count()).toBe(1)
      expect(await axeFindings(page, 'subscriptions with groups')).toEqual([])
      await shot('feed-groups-subscriptions')

      await page.goto('/youtube/videos?perPage=100')
      await listSettled()
      const chips = page.getByRole('group', { name: 'Channel groups' })
      expect(await chips.getByRole('button', { name: 'All channels' }).getAttribute('aria-pressed')).toBe('true')
      // keyboard: focus the chip and press Enter
      await chips.getByRole('button', { name: 'Kitchen' }).focus()
      await page.keyboard.press('Enter')
      await page.waitForURL(() => search().has('group'))
      await listSettled()
      expect(await cards().count()).toBe(kitchen.uploads.length)
      expect(await chips.getByRole('button', { name: 'Kitchen' }).getAttribute('aria-pressed')).toBe('true')
      expect(await axeFindings(page, 'feed with group chips')).toEqual([])
      await shot('feed-group-chips')

      await page.setViewportSize(PHONE)
      await page.reload()
      await listSettled()
      // the groups come in their own request, which may answer after the list
      await chips.getByRole('button', { name: 'Kitchen' }).waitFor({ timeout: 5_000 })
      expect(await chips.getByRole('button', { name: 'Kitchen' }).isVisible()).toBe(true)
      expect(await axeFindings(page, 'feed with group chips, phone')).toEqual([])
      await shot('feed-group-chips-phone')
      await chips.getByRole('button', { name: 'All channels' }).click()
      await page.waitForURL(() => !search().has('group'))
      await page.setViewportSize(DESKTOP)
    },
    180_000,
  )

  test(
    'muted words: added in Account → Feed, each says how many videos it hides, the feed leaves them out',
    async () => {
      const all = (await api<List>('/api/youtube/videos/list?per_page=100')).videos
      // a word of some title (the fake's titles: "<verb> <thing> #n")
      const word = all[0]!.title.split(' ').at(-2)!
      const hides = all.filter((v) => v.title.toLowerCase().split(/[^\p{L}\p{N}]+/u).includes(word.toLowerCase())).length
      expect(hides).toBeGreaterThan(0)
      await page.goto('/account?tab=feed')
      await page.getByLabel('Word or phrase').fill(word.toUpperCase())
      await page.getByLabel('Word or phrase').press('Enter')
      const muted = page.getByRole('list', { name: 'Muted words' })
      await muted.getByText(`hides ${hides} video${hides === 1 ? '' : 's'}`).waitFor()
      expect(await axeFindings(page, 'account feed tab')).toEqual([])
      await shot('feed-muted-words')
      await page.setViewportSize(PHONE)
      expect(await axeFindings(page, 'account feed tab, phone')).toEqual([])
      await shot('feed-muted-words-phone')
      await page.setViewportSize(DESKTOP)

      await page.goto('/youtube/videos?perPage=100')
      await listSettled()
      expect(await cards().count()).toBe(all.length - hides)
      const titles = await cards().evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))
      for (const t of titles) expect(t.toLowerCase().split(/[^\p{L}\p{N}]+/u)).not.toContain(word.toLowerCase())

      // unmuted: everything is back
      await page.goto('/account?tab=feed')
      await page.getByRole('button', { name: `Unmute ${word.toUpperCase()}` }).click()
      await page.getByText('No muted words.').waitFor()
    },
    120_000,
  )

  test(
    'DeArrow: off by default, then titles; the card and the video page show the original one press away',
    async () => {
      const all = (await api<List>('/api/youtube/videos/list?per_page=100')).videos
      const target = all[0]!
      dearrow.branding.set(target.id, { titles: [title('>A calm, clear title', 2)], thumbnails: [] })
      expect(dearrow.requests).toEqual([])

      await page.goto('/account?tab=feed')
      const mode = page.getByRole('radiogroup', { name: 'DeArrow' })
      await mode.getByText('Titles', { exact: true }).click()
      await page.getByText('DeArrow: Titles.').waitFor()
      await shot('feed-dearrow-settings')

      await page.goto('/youtube/videos?perPage=100')
      await listSettled()
      const c = card(target.id)
      expect(await c.getAttribute('aria-label')).toBe('A calm, clear title')
      const toggle = c.getByRole('button', { name: 'Original title' })
      await toggle.focus()
      await page.keyboard.press('Enter')
      expect(await c.getAttribute('aria-label')).toBe(target.title)
      expect(await toggle.getAttribute('aria-pressed')).toBe('true')
      await page.keyboard.press('Enter')
      expect(await c.getAttribute('aria-label')).toBe('A calm, clear title')
      expect(await axeFindings(page, 'feed with DeArrow')).toEqual([])
      await c.scrollIntoViewIfNeeded()
      await shot('feed-dearrow-card')

      await page.goto(`/youtube/video/${target.id}`)
      await page.getByRole('heading', { name: 'A calm, clear title' }).waitFor()
      await page.getByRole('button', { name: 'Original title' }).click()
      await page.getByRole('heading', { name: target.title }).waitFor()
      await shot('feed-dearrow-video-page')
      // only hash prefixes reached the branding API
      expect(dearrow.leaks).toEqual([])
      for (const r of dearrow.requests) expect(r).toMatch(/^\/api\/branding\/[0-9a-f]{4}$/)
    },
    120_000,
  )
})

noPageErrors()
