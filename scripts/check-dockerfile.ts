#!/usr/bin/env bun
/**
 * Checks the Dockerfile without a Docker engine (none runs on the CI machine).
 *
 *   bun scripts/check-dockerfile.ts             static checks (also run by tests/deploy/dockerfile.test.ts)
 *   bun scripts/check-dockerfile.ts --simulate  + replays the build stage in a clean folder holding only
 *                                                what the COPY lines take (after .dockerignore), then runs
 *                                                the built binary as the runtime stage would: its ENV, a
 *                                                non-root user, an empty /data, its HEALTHCHECK command
 *
 * Static checks: every COPY source exists and is not excluded by .dockerignore;
 * base images carry a tag; the yt-dlp release is pinned with a SHA-256; the
 * runtime runs as a non-root USER with a /data VOLUME, a HEALTHCHECK and an
 * ENTRYPOINT; the ENV settings pass src/env.ts.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { parseEnv } from '../src/env.ts'

const ROOT = resolve(import.meta.dir, '..')

export interface Instruction {
  stage: string
  op: string
  args: string
  line: number
}

/** Dockerfile instructions with line continuations joined and comments dropped. */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = []
  let stage = ''
  let buffer = ''
  let start = 0
  text.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd()
    if (!buffer && (line.trim() === '' || line.trim().startsWith('#'))) return
    if (!buffer) start = i + 1
    buffer += (buffer ? ' ' : '') + line.replace(/\\$/, '').trim()
    if (line.endsWith('\\')) return
    const [op, ...rest] = buffer.split(/\s+/)
    const args = rest.join(' ')
    if (op!.toUpperCase() === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? args
    out.push({ stage, op: op!.toUpperCase(), args, line: start })
    buffer = ''
  })
  return out
}

/** .dockerignore patterns as a predicate over context-relative paths (the subset of the syntax we use). */
export function dockerignore(text: string): (path: string) => boolean {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((p) => new Bun.Glob(p.replace(/^\//, '')))
  return (path) => {
    const parts = path.split('/')
    // a path is excluded when it or one of its parent folders matches
    return parts.some((_, i) => patterns.some((g) => g.match(parts.slice(0, i + 1).join('/'))))
  }
}

/** COPY sources from the build context (not --from=stage). */
export function copySources(instructions: Instruction[]): { sources: string[]; dest: string; line: number }[] {
  return instructions
    .filter((i) => i.op === 'COPY' && !/--from=/.test(i.args))
    .map((i) => {
      const words = i.args.split(/\s+/).filter((w) => !w.startsWith('--'))
      return { sources: words.slice(0, -1), dest: words.at(-1)!, line: i.line }
    })
}

export function staticProblems(dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8'), ignoreText = readFileSync(join(ROOT, '.dockerignore'), 'utf8')): string[] {
  const problems: string[] = []
  const ins = parseDockerfile(dockerfile)
  const ignored = dockerignore(ignoreText)
  for (const { sources, line } of copySources(ins)) {
    for (const src of sources) {
      const path = join(ROOT, src)
      if (!existsSync(path)) problems.push(`line ${line}: COPY source ${src} does not exist`)
      else if (ignored(relative(ROOT, path))) problems.push(`line ${line}: COPY source ${src} is excluded by .dockerignore`)
    }
  }
  const froms = ins.filter((i) => i.op === 'FROM')
  if (froms.length < 2) problems.push('not multi-stage: expected a build and a runtime FROM')
  for (const f of froms) {
    const image = f.args.split(/\s+/)[0]!
    if (!/:[\w.-]+$/.test(image) || image.endsWith(':latest')) problems.push(`line ${f.line}: base image ${image} has no pinned tag`)
  }
  const runtime = froms.at(-1)!.stage
  const last = ins.filter((i) => i.stage === runtime)
  const arg = (name: string) => new RegExp(`^${name}=(\\S+)$`).exec(last.find((i) => i.op === 'ARG' && i.args.startsWith(`${name}=`))?.args ?? '')?.[1]
  if (!/^\d{4}\.\d{2}\.\d{2}$/.test(arg('YTDLP_VERSION') ?? '')) problems.push('YTDLP_VERSION is not pinned to a release (YYYY.MM.DD)')
  if (!/^[0-9a-f]{64}$/.test(arg('YTDLP_SHA256') ?? '')) problems.push('YTDLP_SHA256 is not a SHA-256')
  if (!last.some((i) => i.op === 'RUN' && i.args.includes('sha256sum -c'))) problems.push('the yt-dlp download is not checked with sha256sum -c')
  const user = last.filter((i) => i.op === 'USER').at(-1)?.args
  if (!user || user === 'root' || user === '0') problems.push('the runtime stage does not switch to a non-root USER')
  if (!last.some((i) => i.op === 'VOLUME' && i.args.includes('/data'))) problems.push('no VOLUME /data')
  const health = last.find((i) => i.op === 'HEALTHCHECK')?.args ?? ''
  if (!health.includes('healthcheck') && !health.includes('/api/health')) problems.push('no HEALTHCHECK on /api/health')
  if (!last.some((i) => i.op === 'ENTRYPOINT' || i.op === 'CMD')) problems.push('no ENTRYPOINT/CMD')
  try {
    parseEnv(runtimeEnv(ins))
  } catch (err) {
    problems.push(`runtime ENV does not pass src/env.ts: ${(err as Error).message}`)
  }
  return problems
}

/** The runtime stage's ENV as a record. */
export function runtimeEnv(ins: Instruction[]): Record<string, string> {
  const runtime = ins.filter((i) => i.op === 'FROM').at(-1)!.stage
  const env: Record<string, string> = {}
  for (const i of ins.filter((x) => x.stage === runtime && x.op === 'ENV')) {
    for (const m of i.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]!] = m[2]!.replace(/^"|"$/g, '')
  }
  return env
}

function sh(cmd: string, cwd: string, env: Record<string, string> = {}) {
  console.log(`$ ${cmd}`)
  const res = spawnSync('sh', ['-c', cmd], { cwd, stdio: 'inherit', env: { ...process.env, ...env } })
  if (res.status !== 0) throw new Error(`failed (${res.status}): ${cmd}`)
}

/** Replays the build stage in a clean folder and starts the result as the runtime stage would. */
async function simulate() {
  const ins = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))
  const ignored = dockerignore(readFileSync(join(ROOT, '.dockerignore'), 'utf8'))
  const build = ins.filter((i) => i.stage === 'build')
  const work = mkdtempSync(join(tmpdir(), 'tunefeed-docker-'))
  const ctx = join(work, 'src')
  mkdirSync(ctx)
  try {
    for (const i of build) {
      if (i.op === 'COPY') {
        const [{ sources, dest }] = copySources([i])
        for (const src of sources) {
          const target = dest.endsWith('/') ? join(ctx, dest, src.split('/').pop()!) : join(ctx, dest)
          cpSync(join(ROOT, src), target, { recursive: true, filter: (from) => !ignored(relative(ROOT, from)) || from === join(ROOT, src) })
        }
      } else if (i.op === 'RUN') {
        // /out is the image's path; here it is a folder of the scratch directory. node:22 ships
        // npm 10, whose `npm ci` accepts our lock file (npm 11 refuses it: optional platform packages)
        sh(i.args.replaceAll('/out/', `${work}/out/`).replace(/^npm /, 'npx -y npm@10 '), ctx)
      }
    }
    const binary = join(work, 'out', 'tunefeed')
    console.log(`\nbuilt ${binary} (${(statSync(binary).size / 1024 / 1024).toFixed(0)} MB) from a clean copy of the build context`)

    // runtime: the image's ENV, an empty data folder owned by an unprivileged user, its HEALTHCHECK command
    // <work>/out stands for /usr/local/bin: the binary and the Deno the build stage copied there
    const env = { ...runtimeEnv(ins), HOST: '127.0.0.1', PORT: '39317', DATA_DIR: join(work, 'data'), PATH: `${join(work, 'out')}:/usr/bin:/bin` }
    mkdirSync(env.DATA_DIR)
    const asRoot = process.getuid?.() === 0
    if (asRoot) spawnSync('chown', ['-R', 'nobody:nogroup', env.DATA_DIR, work])
    const prefix = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : []
    const server = Bun.spawn([...prefix, binary], { cwd: env.DATA_DIR, env, stdout: 'pipe', stderr: 'inherit' })
    try {
      let ok = false
      for (let i = 0; i < 120 && !ok; i++) {
        await Bun.sleep(500)
        ok = spawnSync(prefix[0] ?? binary, [...prefix.slice(1), ...(prefix.length ? [binary] : []), 'healthcheck'], { env }).status === 0
      }
      if (!ok) throw new Error('the HEALTHCHECK command never succeeded')
      console.log(`healthcheck ok as ${asRoot ? 'uid 65534' : 'the current user'}; data folder: ${spawnSync('ls', [env.DATA_DIR]).stdout}`)
    } finally {
      server.kill('SIGTERM')
      console.log(`server exited with ${await server.exited} on SIGTERM`)
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const problems = staticProblems()
  for (const p of problems) console.error(`Dockerfile: ${p}`)
  if (problems.length) process.exit(1)
  console.log('Dockerfile: static checks passed')
  if (process.argv.includes('--simulate')) await simulate()
}
