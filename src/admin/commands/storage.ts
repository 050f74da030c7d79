/**
 * The store from the command line (docs/decisions/241-storage-copy-and-check.md):
 *
 *   bun scripts/admin.ts storage check            `missing <key>` / `stray <key>` lines; exit 1 when any
 *   bun scripts/admin.ts storage copy --to s3     every kept file into the other store, each copy's bytes
 *                                                 checked (SHA-256 read back); run it again to resume
 *
 * Copying changes nothing the app serves: the app reads the store STORAGE names until it is switched.
 */
import { createHash } from 'node:crypto'
import { compareStore, expectedKeys } from '../../storage/keys.ts'
import { createStorage, type Store } from '../../storage/index.ts'
import { CommandError, UsageError, takeFlags, type Command } from './command.ts'

async function sha256Of(store: Store, key: string): Promise<string | null> {
  const got = await store.get(key)
  if (!got) return null
  const hash = createHash('sha256')
  for await (const chunk of got.body) hash.update(chunk)
  return hash.digest('hex')
}

const mb = (n: number) => `${(n / 1024 ** 2).toFixed(1)} MB`

export const storageCommands: Record<string, Command> = {
  storage: {
    usage: 'storage check | storage copy --to s3|local',
    summary: 'compare the database with the store, or copy every kept file to the other store',
    async run(args, ctx) {
      // `--to s3` as the contract writes it, or `--to=s3`
      const joined = args.flatMap((a, i) => (a === '--to' ? [] : args[i - 1] === '--to' ? [`--to=${a}`] : [a]))
      const { values, rest } = takeFlags(joined, [], ['to'])
      const [sub] = rest
      const { db } = await ctx.database()
      const build = (kind: 'local' | 's3') => {
        try {
          return createStorage(ctx.env, kind).store
        } catch (err) {
          throw new CommandError((err as Error).message)
        }
      }
      if (sub === 'check' && rest.length === 1) {
        const { missing, stray } = await compareStore(db, build(ctx.env.STORAGE))
        for (const key of missing) ctx.out(`missing ${key}`)
        for (const key of stray) ctx.out(`stray ${key}`)
        if (missing.length || stray.length) throw new CommandError(`${missing.length} missing, ${stray.length} stray`)
        ctx.out('storage check: no differences')
        return
      }
      if (sub === 'copy' && rest.length === 1) {
        const to = values.to
        if (to !== 's3' && to !== 'local') throw new UsageError('--to must be s3 or local')
        const from = build(to === 's3' ? 'local' : 's3')
        const target = build(to)
        const expected = await expectedKeys(db)
        const optional = expected.optional
        const keys = [...expected.keys, ...optional].sort()
        let done = 0
        let copied = 0
        let bytes = 0
        const failed: string[] = []
        for (const key of keys) {
          done++
          const source = await from.head(key)
          if (!source && optional.has(key)) {
            ctx.out(`[${done}/${keys.length}] ${copied} copied, ${mb(bytes)}`)
            continue
          }
          if (!source) {
            failed.push(key)
            ctx.out(`[${done}/${keys.length}] missing in the source: ${key}`)
            continue
          }
          const there = await target.head(key)
          // resumable: a copy already there with the same size and bytes is left as it is
          if (!there || there.size !== source.size || (await sha256Of(target, key)) !== (await sha256Of(from, key))) {
            const local = from.localPath(key)
            if (local) await target.putFile(key, local)
            else await target.put(key, (await from.get(key))!.body)
            const [a, b] = await Promise.all([sha256Of(from, key), sha256Of(target, key)])
            if (!a || a !== b) {
              failed.push(key)
              ctx.out(`[${done}/${keys.length}] bytes differ after copying: ${key}`)
              continue
            }
            copied++
            bytes += source.size
          }
          ctx.out(`[${done}/${keys.length}] ${copied} copied, ${mb(bytes)}`)
        }
        if (failed.length) throw new CommandError(`${failed.length} file(s) not copied; run it again after fixing the source`)
        ctx.out(`storage copy: ${keys.length} files in ${to}, ${copied} copied now (${mb(bytes)})`)
        return
      }
      throw new UsageError('expected `check` or `copy --to s3|local`')
    },
  },
}
