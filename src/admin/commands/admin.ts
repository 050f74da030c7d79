/**
 * The admin page's actions from the command line (every one of them is also a
 * command), over the same functions as the routes (src/admin/). Listed in
 * ./index.ts (the command line: scripts/admin.ts):
 *
 *   status · users [<search>] [--page=N] · disable-user|enable-user <email> · delete-user <email> --yes
 *   jobs · job-retry <id> · job-delete <id> · schedules · schedule-run <name> · cron-run
 *   mail · mail-test <email>
 */
import { adminFailedJobs, deleteFailedJob, retryFailedJob, runSchedule } from '../jobs.ts'
import { adminMail, adminSchedules, adminStatus, queueCounts, testMail } from '../status.ts'
import { deleteUser, listUsers, updateUser } from '../users.ts'
import { CommandError, parseEmail, positional, takeFlags, UsageError, userIdOf, type Command, type CommandContext } from './command.ts'

function pageOption(args: string[]) {
  const rest: string[] = []
  let page = 1
  for (const arg of args) {
    const m = /^--page=(\d+)$/.exec(arg)
    if (m) page = Math.max(1, Number(m[1]))
    else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`)
    else rest.push(arg)
  }
  return { page, rest }
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
function jobId(args: string[]) {
  const [id] = positional(takeFlags(args, []).rest, 1)
  if (!uuid.test(id!)) throw new UsageError(`not a failed job id: ${id}`)
  return id!
}

async function setDisabled(args: string[], ctx: CommandContext, disabled: boolean) {
  const [raw] = positional(takeFlags(args, []).rest, 1)
  const { db } = await ctx.database()
  const user = await userIdOf(db, raw)
  await updateUser(db, user.id, { disabled })
  ctx.out(`${user.email} is ${disabled ? 'disabled: its sessions ended' : 'enabled'}.`)
}

const day = (iso: string | null) => iso?.slice(0, 16).replace('T', ' ') ?? '-'

export const adminCommands: Record<string, Command> = {
  status: {
    usage: 'status',
    summary: 'version, database, queue, YouTube quota and schedules',
    async run(args, ctx) {
      takeFlags(args, [])
      const s = await adminStatus(await ctx.context())
      ctx.out(`Tunefeed ${s.version} on ${s.database.kind} (${s.database.version})`)
      ctx.out(`Queue: ${s.queue.waiting} waiting, ${s.queue.active} active, ${s.queue.failed} failed`)
      const q = s.youtube.quota
      ctx.out(`YouTube: ${s.youtube.mode === 'api' ? 'API key' : 'feeds only (no API key)'}; ${q.units} of ${q.budget} units today${q.exhausted ? `; stopped: ${q.cause} Resumes ${q.resetsAt}` : ''}`)
      for (const sc of s.schedules) ctx.out(`Schedule ${sc.name} (${sc.every}): last ${day(sc.lastRunAt)} ${sc.lastOutcome ?? ''}`.trimEnd())
      if (s.proxy.untrustedForwarded) ctx.out('Proxy: requests arrive with X-Forwarded-For but TRUST_PROXY is off; set TRUST_PROXY=1 when a proxy you run is in front')
    },
  },
  users: {
    usage: 'users [<search>] [--page=N]',
    summary: 'list accounts (20 a page), or those whose e-mail contains <search>',
    async run(args, ctx) {
      const { page, rest } = pageOption(args)
      if (rest.length > 1) throw new UsageError('expected at most one search')
      const { db } = await ctx.database()
      const list = await listUsers(db, { page, perPage: 20, q: rest[0] })
      for (const u of list.users) {
        const flags = [u.admin && 'admin', !u.verified && 'unverified', u.disabled && 'disabled'].filter(Boolean).join(',')
        ctx.out(`${u.email}  ${flags || '-'}  jobs ${u.jobCount}  subscriptions ${u.subscriptionCount}  last seen ${day(u.lastSeenAt)}`)
      }
      ctx.out(`Page ${page} of ${list.totalPages}.`)
    },
  },
  'disable-user': {
    usage: 'disable-user <email>',
    summary: 'stop an account: its sessions and tokens end at once, sign-in refused',
    run: (args, ctx) => setDisabled(args, ctx, true),
  },
  'enable-user': {
    usage: 'enable-user <email>',
    summary: 'let a disabled account sign in again',
    run: (args, ctx) => setDisabled(args, ctx, false),
  },
  'delete-user': {
    usage: 'delete-user <email> --yes',
    summary: 'delete an account with all its data (never the last admin)',
    async run(args, ctx) {
      const { flags, rest } = takeFlags(args, ['--yes'])
      const [raw] = positional(rest, 1)
      if (!flags.has('--yes')) throw new UsageError('deleting removes every job, file and subscription of the account: add --yes')
      const app = await ctx.context()
      const user = await userIdOf(app.db, raw)
      await deleteUser(app, user.id)
      ctx.out(`Deleted ${user.email} and all its data.`)
    },
  },
  jobs: {
    usage: 'jobs',
    summary: 'queue counts and the failed jobs with their reasons and owners',
    async run(args, ctx) {
      takeFlags(args, [])
      const app = await ctx.context()
      const counts = await queueCounts(app)
      ctx.out(`${counts.waiting} waiting, ${counts.active} active, ${counts.failed} failed`)
      for (const f of await adminFailedJobs(app)) {
        ctx.out(`${f.id}  ${f.name}  ${day(f.failedAt)}  ${f.owner?.email ?? '-'}  ${f.error}`)
      }
    },
  },
  'job-retry': {
    usage: 'job-retry <id>',
    summary: 'queue a failed job again (its id from `jobs`)',
    async run(args, ctx) {
      const id = jobId(args)
      ctx.out(`Queued again as ${await retryFailedJob(await ctx.context(), id)}.`)
    },
  },
  'job-delete': {
    usage: 'job-delete <id>',
    summary: 'forget a failed job',
    async run(args, ctx) {
      const id = jobId(args)
      await deleteFailedJob(await ctx.context(), id)
      ctx.out(`Deleted failed job ${id}.`)
    },
  },
  schedules: {
    usage: 'schedules',
    summary: 'each recurring job with its interval, last run, outcome and next run',
    async run(args, ctx) {
      takeFlags(args, [])
      for (const s of await adminSchedules(await ctx.context())) {
        const last = s.lastRunAt ? `last ${day(s.lastRunAt)} ${s.lastOutcome}${s.lastError ? ` (${s.lastError})` : ''}` : 'never run'
        ctx.out(`${s.name}  ${s.every}  ${last}  next ${day(s.nextRunAt)}`)
      }
    },
  },
  'schedule-run': {
    usage: 'schedule-run <name>',
    summary: 'queue a recurring job now (names from `schedules`)',
    async run(args, ctx) {
      const [name] = positional(takeFlags(args, []).rest, 1)
      ctx.out(`Queued ${name} as ${await runSchedule(await ctx.context(), name!)}.`)
    },
  },
  'cron-run': {
    usage: 'cron-run',
    summary: 'queue every recurring job now',
    async run(args, ctx) {
      takeFlags(args, [])
      const app = await ctx.context()
      for (const s of await adminSchedules(app)) ctx.out(`Queued ${s.name} as ${await runSchedule(app, s.name)}.`)
    },
  },
  mail: {
    usage: 'mail',
    summary: 'the mail settings in use',
    async run(args, ctx) {
      takeFlags(args, [])
      const m = adminMail(ctx)
      ctx.out(m.transport === 'smtp' ? `SMTP ${m.host}:${m.port}${m.secure ? ' (TLS)' : ''}${m.username ? ` as ${m.username}` : ''}` : `No SMTP server: mails are saved in ${m.folder}`)
      ctx.out(`From: ${m.from}`)
    },
  },
  'mail-test': {
    usage: 'mail-test <email>',
    summary: 'send a test mail',
    async run(args, ctx) {
      const [raw] = positional(takeFlags(args, []).rest, 1)
      const to = parseEmail(raw)
      try {
        await (await ctx.context()).mailer.send(testMail(to))
      } catch (err) {
        throw new CommandError(`Mail could not be sent: ${err instanceof Error ? err.message : String(err)}`)
      }
      ctx.out(`Test mail sent to ${to}.`)
    },
  },
}
