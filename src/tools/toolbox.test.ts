import { describe, expect, test } from 'bun:test'
import { parseEnv } from '../env.ts'
import { Cipher } from '../lib/secret.ts'
import { parseAllowList } from '../lib/url-guard.ts'
import { isPacedSite, Toolbox } from './toolbox.ts'

// Pacing after bot checks, without yt-dlp: the per-site pause that link jobs wait out.
const toolbox = (pause: string) =>
  new Toolbox(parseEnv({ DATA_DIR: '/nonexistent', BOT_CHECK_PAUSE_SECONDS: pause, YTDLP_UPDATE: 'off' }), {
    db: undefined as never,
    cipher: new Cipher('x'.repeat(32)),
    allow: parseAllowList(''),
  })

async function waited(tools: Toolbox, url: string): Promise<number> {
  const started = performance.now()
  await tools.waitForSite(url, AbortSignal.timeout(10_000))
  return performance.now() - started
}

describe('site pause after a bot check', () => {
  test('link jobs for that site wait, longer after each new check; other sites do not; a success clears it', async () => {
    const tools = toolbox('0.3')
    const video = 'https://www.youtube.com/watch?v=abc'
    expect(await waited(tools, video)).toBeLessThan(50)
    tools.noteBotCheck(video)
    const first = await waited(tools, 'https://www.youtube.com/watch?v=other')
    expect(first).toBeGreaterThan(250)
    expect(first).toBeLessThan(600)
    expect(await waited(tools, 'https://vimeo.com/1')).toBeLessThan(50)
    tools.noteBotCheck(video)
    const second = await waited(tools, video)
    expect(second).toBeGreaterThan(550)
    tools.noteSuccess(video)
    expect(await waited(tools, video)).toBeLessThan(50)
  })

  test('the wait ends when the job is aborted; 0 turns pausing off', async () => {
    const tools = toolbox('60')
    tools.noteBotCheck('https://youtu.be/x')
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('cancelled')), 100)
    await expect(tools.waitForSite('https://youtu.be/y', controller.signal)).rejects.toThrow('cancelled')
    const off = toolbox('0')
    off.noteBotCheck('https://youtu.be/x')
    expect(await waited(off, 'https://youtu.be/x')).toBeLessThan(50)
  })

  test('YouTube is paced between requests; other sites are not', () => {
    expect(isPacedSite('https://www.youtube.com/watch?v=1')).toBe(true)
    expect(isPacedSite('https://youtu.be/1')).toBe(true)
    expect(isPacedSite('https://music.youtube.com/watch?v=1')).toBe(true)
    expect(isPacedSite('https://notyoutube.com/x')).toBe(false)
    expect(isPacedSite('http://127.0.0.1:8080/page.html')).toBe(false)
  })
})
