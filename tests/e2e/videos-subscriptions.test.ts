import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { WebSocket } from 'playwright-core'
import {
  api,
  fake,
  noPageErrors,
  page,
  setUpVideoArea,
  shot,
  subscribe,
  until,
  workDir,
} from '../support/videos-e2e.ts'

// Subscribing by handle (the channel page filling in live), importing a
// subscriptions file, the user channel and unsubscribing. Set-up and helpers:
// tests/support/videos-e2e.ts.

setUpVideoArea()

describe('video area in the browser: subscriptions and the channel page', () => {
  let tinyKitchen: string

  test(
    'subscribe by @handle in the Update Subscriptions modal and watch the channel fill in live',
    async () => {
      await page.getByRole('link', { name: 'Subscriptions' }).click()
      await page.waitForURL((url) => url.pathname === '/youtube/subscriptions')
      await page.getByText('No subscriptions yet').waitFor()
      await page.waitForFunction(() => document.title === 'Subscriptions | Tunefeed')

      await page.getByRole('button', { name: 'Update Subscriptions' }).click()
      const dialog = page.getByRole('dialog', { name: 'Update Subscriptions' })
      await dialog.waitFor()
      expect(await dialog.getByRole('tab', { name: 'Subscriptions' }).getAttribute('aria-selected')).toBe('true')
      expect(await dialog.getByRole('tab', { name: 'User Channel' }).isVisible()).toBe(true)

      // an unknown handle: the error beside the form, the input keeps what was typed
      const input = dialog.getByLabel('Channel ID or Handle')
      await input.fill('@no-such-channel-here')
      await dialog.getByRole('button', { name: 'Subscribe' }).click()
      await dialog.getByRole('alert').filter({ hasText: 'Channel not found.' }).waitFor()
      expect(await input.inputValue()).toBe('@no-such-channel-here')

      // hold the refresh that follows (its playlist and feed calls) until the page has shown it
      const release = fake.hold((path) => path.includes('/playlistItems') || path.startsWith('/feeds/'))
      // and slow the channel look-up down, so the Subscribe button's pending state can be seen
      fake.latencyMs = 1500
      await input.fill('@tiny-kitchen')
      const subscribe = dialog.getByRole('button', { name: 'Subscribe' })
      await subscribe.click()
      await dialog.locator('button[type=submit][aria-busy=true]').waitFor() // loading while pending
      await dialog.getByText('Added Subscription Successfully').waitFor()
      fake.latencyMs = 0
      expect(await input.inputValue()).toBe('') // cleared after success
      await shot('subscriptions-dialog')
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })

      // the card is there, and the channel page shows the refresh running, then its videos
      const tile = page.getByRole('article', { name: 'Tiny Kitchen' })
      await tile.waitFor()
      await tile.getByRole('link', { name: 'Tiny Kitchen' }).click()
      await page.waitForURL((url) => url.pathname.startsWith('/youtube/channel/'))
      tinyKitchen = page.url().split('/').pop()!.split('?')[0]!
      expect(tinyKitchen).toBe(fake.channel('@tiny-kitchen').id)
      await page.getByRole('heading', { name: 'Tiny Kitchen', level: 1 }).waitFor()
      await page.getByText('Retrieving latest videos...').waitFor({ timeout: 15_000 })
      release()
      await page.getByText('Retrieving latest videos...').waitFor({ state: 'hidden', timeout: 60_000 })
      // no reload: the socket said the refresh ended and the list refreshed itself
      await page.waitForFunction(() => document.querySelectorAll('article[data-video-id]').length === 12, null, { timeout: 15_000 })
      await page.waitForFunction(() => document.title === 'Tiny Kitchen | Tunefeed')
      expect(await page.getByRole('button', { name: 'Unsubscribe' }).isVisible()).toBe(true)
      expect(await page.getByRole('button', { name: 'Enable AutoPlay' }).isVisible()).toBe(true)
      await shot('channel')
    },
    { timeout: 120_000 },
  )


  test(
    'subscriptions: import a Takeout file, connect the user channel, unsubscribe through the confirmation',
    async () => {
      await subscribe('@lofi-garden') // as the feed test does (videos-feed.test.ts)
      await page.goto('/youtube/subscriptions')
      await page.getByRole('article', { name: 'Lofi Garden' }).waitFor()
      await page.getByRole('button', { name: 'Update Subscriptions' }).click()
      const dialog = page.getByRole('dialog', { name: 'Update Subscriptions' })

      // import: two known channels (one already subscribed) and one unknown
      const file = join(workDir, 'subscriptions.csv')
      const star = fake.channel('@star-lab')
      const tiny = fake.channel('@tiny-kitchen')
      writeFileSync(
        file,
        [
          'Channel Id,Channel Url,Channel Title',
          `${star.id},http://www.youtube.com/channel/${star.id},${star.title}`,
          `${tiny.id},http://www.youtube.com/channel/${tiny.id},${tiny.title}`,
          'UCzzzzzzzzzzzzzzzzzzzzzz,http://www.youtube.com/channel/UCzzzzzzzzzzzzzzzzzzzzzz,Gone',
        ].join('\n'),
      )
      await dialog.getByLabel('Import from a file').setInputFiles(file)
      await dialog.getByRole('button', { name: 'Import', exact: true }).click()
      await dialog.getByText('Google Takeout CSV: 1 added, 1 already subscribed, 1 not found.').waitFor()

      // the User Channel tab
      await dialog.getByRole('tab', { name: 'User Channel' }).click()
      const current = dialog.getByLabel('Current Channel ID')
      expect(await current.getAttribute('readonly')).not.toBeNull()
      expect(await current.inputValue()).toBe('')
      await dialog.getByLabel(/^Channel ID\*?$/).fill('@viewer-empty')
      await dialog.getByRole('button', { name: 'Update' }).click()
      await dialog.getByText('Updated Channel Successfully').waitFor()
      expect(await dialog.getByLabel(/^Channel ID\*?$/).inputValue()).toBe('')
      await until('current channel id', async () => (await current.inputValue()) === fake.channel('@viewer-empty').id)
      // changing it again within 24 hours is refused, with the server's words
      await dialog.getByLabel(/^Channel ID\*?$/).fill('@viewer-alice')
      await dialog.getByRole('button', { name: 'Update' }).click()
      await dialog.getByRole('alert').filter({ hasText: 'Must wait 24 hours before updating channel id.' }).waitFor()
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })

      await page.getByRole('article', { name: 'Star Lab' }).waitFor()
      await page.mouse.move(5, 500)
      await shot('subscriptions')

      // unsubscribe: the control shows on hover; Cancel keeps it, Confirm removes it
      const tile = page.getByRole('article', { name: 'Tiny Kitchen' })
      await tile.hover()
      await tile.getByRole('button', { name: 'Unsubscribe from Tiny Kitchen' }).click()
      const confirm = page.getByRole('alertdialog', { name: 'Confirm Remove Subscription' })
      await confirm.getByText('Tiny Kitchen').waitFor()
      await shot('subscriptions-unsubscribe')
      await confirm.getByRole('button', { name: 'Cancel' }).click()
      await confirm.waitFor({ state: 'hidden' })
      expect(await tile.isVisible()).toBe(true)
      await tile.hover()
      await tile.getByRole('button', { name: 'Unsubscribe from Tiny Kitchen' }).click()
      await confirm.getByRole('button', { name: 'Confirm' }).click()
      await tile.waitFor({ state: 'hidden' })
      const list = await api<{ channels: { id: string }[] }>('/api/youtube/subscriptions/list')
      expect(list.channels.map((c) => c.id)).not.toContain(tinyKitchen)
    },
    { timeout: 90_000 },
  )

  test(
    "Subscribe on a channel's page: its videos show even when the list's first answer comes after the refresh ended",
    async () => {
      // A list asked before the channel's first refresh wrote anything, answered after the
      // socket said the refresh ended (a busy machine's ordering), must not stay empty.
      const pixel = fake.channel('@pixel-arcade').id
      let ended!: () => void
      const refreshEnded = new Promise<void>((resolve) => (ended = resolve))
      const onSocket = (ws: WebSocket) => {
        if (!ws.url().endsWith('/api/youtube/channel/listen')) return
        ws.on('framereceived', (frame) => {
          const msg = JSON.parse(String(frame.payload)) as { id?: string; updating?: boolean }
          if (msg.id === pixel && msg.updating === false) ended()
        })
      }
      page.on('websocket', onSocket)
      // the channel page asks for the list when it opens (the server looks the channel up); that
      // first answer (no videos yet) is handed to the page only after the refresh Subscribe starts
      // has ended, and that refresh waits on the fake YouTube until released after Subscribe
      const release = fake.hold((path) => path.includes('/playlistItems') || path.startsWith('/feeds/'))
      const list = new RegExp(`/api/youtube/videos/list\\?.*channel_id=${pixel}`)
      const answers: number[] = []
      await page.route(list, async (route) => {
        if (answers.length > 0) return route.continue()
        const res = await route.fetch()
        const body = (await res.json()) as { videos: unknown[] }
        answers.push(body.videos.length)
        await refreshEnded
        await route.fulfill({ response: res, json: body })
      })
      try {
        await page.goto(`/youtube/channel/${pixel}`)
        await page.getByText('You do not follow this channel yet.').waitFor()
        await page.getByRole('button', { name: 'Subscribe' }).click()
        await page.getByRole('button', { name: 'Unsubscribe' }).waitFor({ timeout: 20_000 })
        release()
        await page.getByRole('heading', { name: 'Pixel Arcade', level: 1 }).waitFor()
        // no reload: the list is asked again after its early answer
        await page.locator('article[data-video-id]').first().waitFor({ timeout: 20_000 })
        expect(answers).toEqual([0])
        await page.getByText('Retrieving latest videos...').waitFor({ state: 'hidden' })
      } finally {
        release()
        page.off('websocket', onSocket)
        await page.unroute(list)
      }
    },
    { timeout: 90_000 },
  )
})

noPageErrors()
