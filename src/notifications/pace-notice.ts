import type { AppContext } from '../context.ts'
import { pageUrl } from '../lib/origin.ts'
import type { PauseStarted } from '../tools/pace.ts'

const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000))

/** The admins' message for a new bot-check pause of YouTube downloads. */
export function pauseNotification(ctx: Pick<AppContext, 'env'>, pause: PauseStarted) {
  const length = minutes(pause.until.getTime() - Date.now())
  const repeat = pause.strikes > 1 ? ` This is pause ${pause.strikes} in a row, so it lasts longer.` : ''
  return {
    title: 'YouTube downloads are paused after a bot check',
    text:
      `YouTube asked this server to confirm it is not a bot, so YouTube downloads and look-ups are paused for about ${length} minutes ` +
      `(until ${pause.until.toISOString()}); other sites go on, and waiting jobs start again after the pause.${repeat} ` +
      `What YouTube said: ${pause.cause} ` +
      'Adding cookies of a YouTube account or a PO-token provider (YTDLP_POT_PROVIDER_URL) on the admin page usually helps.',
    url: pageUrl(ctx, '/admin'),
  }
}
