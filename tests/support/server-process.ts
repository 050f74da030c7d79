import type { Subprocess } from 'bun'
import { join } from 'node:path'

export const REPO_ROOT = join(import.meta.dir, '../..')

/**
 * `bun src/index.ts` as a real child process on 127.0.0.1 with a random port.
 * Resolves once it logs "tunefeed listening" (or rejects with its output if it
 * exits first). The output is kept for assertions.
 */
export interface ServerProcess {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  port: number
  url: string
  stdout(): string
  stderr(): string
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>
}

export interface Exited {
  code: number
  stdout: string
  stderr: string
}

function collect(stream: ReadableStream<Uint8Array>, sink: { text: string }, onChunk: () => void) {
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      sink.text += decoder.decode(chunk, { stream: true })
      onChunk()
    }
  })()
}

export function baseEnv(env: Record<string, string>): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^(DATABASE_URL|TEST_DATABASE_URL|SMTP_URL|PORT|HOST|DATA_DIR)$/.test(k)),
  ) as Record<string, string>
  return {
    ...inherited,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    SCHEDULER: 'false',
    // no managed yt-dlp download unless a test points YTDLP_RELEASE_URL at a local release server
    YTDLP_UPDATE: 'off',
    // the canary (src/tools/canary.ts) never reaches YouTube from a test: nothing listens on port 9
    YTDLP_CANARY_URL: 'http://127.0.0.1:9/canary',
    // nor SponsorBlock (the player asks for segments): unavailable unless a test points it at its stand-in
    SPONSORBLOCK_URL: 'http://127.0.0.1:9/sponsorblock',
    // nor lrclib.net (a finished music job looks its lyrics up): off unless a test points it at its stand-in
    LYRICS_URL: 'off',
    // no YouTube pacing unless a test sets it (src/tools/pace.test.ts)
    YTDLP_SLEEP_SECONDS: '0',
    APP_SECRET: 'process-test-secret-process-test-secret',
    ...env,
  }
}

/** Starts the server; rejects (with its output) if it exits or does not listen within timeoutMs. */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 60_000,
  /** Another server command (the compiled binary) and working directory. */
  opts: { cmd?: string[]; cwd?: string } = {},
): Promise<ServerProcess> {
  const cmd = opts.cmd ?? [process.execPath, 'src/index.ts']
  const proc = Bun.spawn(cmd, { cwd: opts.cwd ?? REPO_ROOT, env: baseEnv(env), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const out = { text: '' }
  const err = { text: '' }
  let wake = () => {}
  collect(proc.stdout, out, () => wake())
  collect(proc.stderr, err, () => wake())
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL')
      reject(new Error(`server did not listen within ${timeoutMs} ms\n${out.text}\n${err.text}`))
    }, timeoutMs)
    wake = () => {
      const m = /"msg":"tunefeed listening","url":"http:\/\/localhost:(\d+)"/.exec(out.text)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    }
    proc.exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code} before listening\n${out.text}\n${err.text}`))
    })
  })
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    stdout: () => out.text,
    stderr: () => err.text,
    async stop(signal = 'SIGTERM') {
      proc.kill(signal)
      const code = await proc.exited
      // let the readers drain what the process wrote last
      await Bun.sleep(20)
      return code
    },
  }
}

/** Runs a command to completion (bounded by timeoutMs) and returns its exit code and output. */
export async function run(cmd: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Exited> {
  const proc = Bun.spawn(cmd, { cwd: REPO_ROOT, env: baseEnv(env), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  clearTimeout(timer)
  return { code, stdout, stderr }
}
