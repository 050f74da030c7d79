/**
 * The video area's refreshes from the command line, run inline (no queue):
 * the same handlers the scheduler and the admin endpoints queue. Listed in
 * ./index.ts (the command line: scripts/admin.ts):
 *
 *   bun scripts/admin.ts youtube-refresh-channels [<channel-id>] [--date-after=YYYYMMDD]
 *   bun scripts/admin.ts youtube-sync-subscriptions [<email>]
 *   bun scripts/admin.ts youtube-refresh-categories
 *   bun scripts/admin.ts youtube-quota
 */
import type { AppContext } from '../../context.ts'
import { findUserByEmail } from '../../auth/queries.ts'
import { Hub } from '../../ws/hub.ts'
import { channelIdSchema, dateAfterSchema, parseDateAfter, refreshAllChannels, syncAllSubscriptions } from '../../youtube/jobs.ts'
import { quotaStatus } from '../../youtube/quota.ts'
import { refreshCategories, refreshChannel } from '../../youtube/refresh.ts'
import { CommandError, UsageError, parseEmail, takeFlags, type Command, type CommandContext } from './command.ts'

/** What the handlers need, without a queue: work runs here and now. */
async function youtubeCtx(ctx: CommandContext): Promise<AppContext> {
  // inside the running server (admin channel): its own context, so sockets hear of refreshes
  if (ctx.app) return ctx.app
  const { db } = await ctx.database()
  return { env: ctx.env, db, hub: new Hub(), jobs: undefined as never } as unknown as AppContext
}

export const youtubeCommands: Record<string, Command> = {
  'youtube-refresh-channels': {
    usage: 'youtube-refresh-channels [<channel-id>] [--date-after=YYYYMMDD]',
    summary: "fetch new videos of one channel, or of every followed channel",
    async run(args, ctx) {
      const { values, rest } = takeFlags(args, [], ['date-after'])
      if (rest.length > 1) throw new UsageError('expected at most one channel id')
      const dateAfter = values['date-after']
      if (dateAfter !== undefined && !dateAfterSchema.safeParse(dateAfter).success) throw new UsageError('--date-after must be YYYYMMDD')
      const app = await youtubeCtx(ctx)
      if (rest[0]) {
        if (!channelIdSchema.safeParse(rest[0]).success) throw new UsageError(`not a channel id: ${rest[0]}`)
        const outcome = await refreshChannel(app, { channelId: rest[0], dateAfter: dateAfter ? parseDateAfter(dateAfter) : undefined })
        ctx.out(`${rest[0]}: ${JSON.stringify(outcome)}`)
        if (outcome.status === 'quota' || outcome.status === 'gone') throw new CommandError(outcome.status === 'gone' ? 'Youtube Channel not found.' : outcome.reason)
        return
      }
      const run = await refreshAllChannels(app, dateAfter ? { dateAfter } : {})
      const added = run.outcomes.reduce((n, o) => n + (o.status === 'done' ? o.added : 0), 0)
      ctx.out(`Refreshed ${run.outcomes.filter((o) => o.status === 'done').length} channels, ${added} new videos.`)
      if (run.stopped) throw new CommandError(`Stopped: ${run.stopped}`)
    },
  },
  'youtube-sync-subscriptions': {
    usage: 'youtube-sync-subscriptions [<email>]',
    summary: "sync subscriptions from users' channels (one user, or all)",
    async run(args, ctx) {
      const { rest } = takeFlags(args, [])
      if (rest.length > 1) throw new UsageError('expected at most one email')
      const app = await youtubeCtx(ctx)
      let userId: string | undefined
      if (rest[0]) {
        const email = parseEmail(rest[0])
        const user = await findUserByEmail(app.db, email)
        if (!user) throw new CommandError(`No account for ${email}.`)
        userId = user.id
      }
      const results = await syncAllSubscriptions(app, { userId })
      for (const r of results) ctx.out(`${r.userId}: ${JSON.stringify({ ...r, userId: undefined })}`)
      ctx.out(`Synced ${results.filter((r) => r.status === 'done').length} of ${results.length} users. New channels fill on the next channel refresh.`)
    },
  },
  'youtube-refresh-categories': {
    usage: 'youtube-refresh-categories',
    summary: 'reload the video category names',
    async run(args, ctx) {
      takeFlags(args, [])
      ctx.out(`${await refreshCategories(await youtubeCtx(ctx))} categories.`)
    },
  },
  'youtube-quota': {
    usage: 'youtube-quota',
    summary: "today's YouTube quota units, and why work stopped if it did",
    async run(args, ctx) {
      takeFlags(args, [])
      const { db } = await ctx.database()
      const s = await quotaStatus(db, ctx.env.YOUTUBE_DAILY_QUOTA)
      ctx.out(`${s.day} (Pacific): ${s.units} of ${s.budget} units in ${s.calls} calls; resets ${s.resetsAt}`)
      if (s.exhausted) ctx.out(`Stopped since ${s.exhaustedAt}: ${s.cause}`)
    },
  },
}
