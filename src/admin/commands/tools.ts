/**
 * The managed yt-dlp and the cookies for it from the command line, on the
 * app's DATA_DIR and database (inside the running server over the admin channel when it runs; the
 * same actions are admin routes under /api/admin/tools). Listed in ./index.ts:
 *
 *   bun scripts/admin.ts tools             which yt-dlp, ffmpeg and JS runtime run, and the last check
 *   bun scripts/admin.ts tools update      check the channel now and switch to a newer build
 *   bun scripts/admin.ts tools rollback    back to the build before
 *   bun scripts/admin.ts tools canary      extract YTDLP_CANARY_URL now (src/tools/canary.ts)
 *   bun scripts/admin.ts cookies set FILE  hand FILE (Netscape cookies.txt) to every yt-dlp call
 *   bun scripts/admin.ts cookies remove
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parseAllowList } from '../../lib/url-guard.ts'
import { Cipher, loadSecret } from '../../lib/secret.ts'
import { canaryStatus, runCanary } from '../../tools/canary.ts'
import { cookiesStatus, MAX_COOKIES_BYTES, parseNetscapeCookies, removeCookies, saveCookies } from '../../tools/cookies.ts'
import { Toolbox } from '../../tools/toolbox.ts'
import { CommandError, UsageError, type Command, type CommandContext } from './command.ts'

async function toolbox(ctx: CommandContext): Promise<Toolbox> {
  // inside the running server (admin channel): its own toolbox, so an update or rollback takes effect there
  if (ctx.app) return ctx.app.tools
  const { db } = await ctx.database()
  const tools = new Toolbox(ctx.env, { db, cipher: new Cipher(loadSecret(ctx.env.APP_SECRET, ctx.env.DATA_DIR)), allow: parseAllowList(ctx.env.FETCH_ALLOW_HOSTS) })
  await tools.init()
  return tools
}

async function printTools(tools: Toolbox, ctx: CommandContext) {
  const { ytDlp, ffmpeg, jsRuntime } = tools.status()
  ctx.out(`yt-dlp   ${ytDlp.version ?? 'missing'}  ${ytDlp.path ?? ''}  (${ytDlp.source ?? 'none'}; channel ${ytDlp.channel})`)
  if (ytDlp.previousVersion) ctx.out(`         previous build ${ytDlp.previousVersion} (tools rollback)`)
  ctx.out(`         checked ${ytDlp.checkedAt ?? 'never'}, updated ${ytDlp.updatedAt ?? 'never'}${ytDlp.lastError ? `, last error: ${ytDlp.lastError}` : ''}`)
  ctx.out(`ffmpeg   ${ffmpeg.version ?? 'missing'}  ${ffmpeg.path ?? ''}  (${ffmpeg.source ?? 'none'})${ffmpeg.advice ? `\n         ${ffmpeg.advice}` : ''}`)
  ctx.out(
    jsRuntime.name
      ? `js       ${jsRuntime.name} ${jsRuntime.version ?? '(no version)'}  ${jsRuntime.path}  (${jsRuntime.source}; ${jsRuntime.supported ? 'supported' : 'NOT supported: YouTube downloads need Deno 2.3 or later, or Node 22 or later'})`
      : 'js       none: YouTube downloads need Deno 2.3 or later, or Node 22 or later',
  )
  const canary = await canaryStatus(ctx)
  const result = canary.ok === null ? 'not run yet' : canary.ok ? `passed ${canary.checkedAt}` : `failed ${canary.checkedAt}: ${canary.lastError}${canary.toolOutput ? ` (yt-dlp said: ${canary.toolOutput})` : ''}`
  ctx.out(`canary   ${result}  (${canary.url})`)
}

export const toolCommands: Record<string, Command> = {
  tools: {
    usage: 'tools [update | rollback | canary]',
    summary: 'show the tools in use; check for a newer yt-dlp now; go back to the build before; or run the canary now',
    async run(args, ctx) {
      if (args.length > 1 || (args[0] && !['update', 'rollback', 'canary'].includes(args[0]))) throw new UsageError('expected nothing, update, rollback or canary')
      if (args[0] === 'canary') {
        // with the app's context: the canary may notify the admins (queued) and records its result
        const app = await ctx.context()
        // a context built here has not looked for its tools yet (the server's has)
        await app.tools.init()
        const canary = await runCanary(app, 'admin')
        ctx.out(canary.ok ? 'The canary passed.' : `The canary failed: ${canary.lastError}${canary.toolOutput ? ` yt-dlp said: ${canary.toolOutput}` : ''}`)
        if (!canary.ok) throw new CommandError('YouTube downloads do not work (see above).')
        return
      }
      const tools = await toolbox(ctx)
      if (args[0] === 'update') {
        if (!tools.managed.enabled) throw new CommandError('The managed yt-dlp is off (YTDLP_PATH is set or YTDLP_UPDATE=off).')
        const outcome = await tools.managed.update('admin')
        if (outcome === 'failed') throw new CommandError(`Update failed: ${tools.managed.snapshot().lastError}`)
        ctx.out(outcome === 'updated' ? 'Updated.' : 'Already the newest build.')
      } else if (args[0] === 'rollback') {
        const build = await tools.managed.rollback()
        if (!build) throw new CommandError('No previous version.')
        ctx.out(`Rolled back to ${build.version}.`)
      }
      await printTools(tools, ctx)
    },
  },
  cookies: {
    usage: 'cookies set <file> | cookies remove',
    summary: 'hand a Netscape cookies.txt to every yt-dlp call (stored encrypted), or remove it',
    // the server reads the file: a relative path is the caller's, not the server's working folder
    forward: (args) => (args[0] === 'set' && args[1] ? ['set', resolve(args[1]), ...args.slice(2)] : args),
    async run(args, ctx) {
      const { db } = await ctx.database()
      if (args[0] === 'remove' && args.length === 1) {
        await removeCookies(db)
        ctx.out('Cookies removed.')
        return
      }
      if (args[0] !== 'set' || args.length !== 2) throw new UsageError('expected set <file> or remove')
      const bytes = await readFile(args[1]!).catch(() => {
        throw new CommandError(`Cannot read ${args[1]}.`)
      })
      if (bytes.length > MAX_COOKIES_BYTES) throw new CommandError('Cookies file is larger than 1 MB.')
      const text = bytes.toString('utf8')
      const parsed = parseNetscapeCookies(text)
      if (!parsed) throw new CommandError('Not a Netscape cookies file.')
      await saveCookies(db, new Cipher(loadSecret(ctx.env.APP_SECRET, ctx.env.DATA_DIR)), text, parsed)
      const status = await cookiesStatus(db)
      ctx.out(`Cookies set: ${status.count} for ${status.domains.join(', ')}.`)
    },
  },
}
