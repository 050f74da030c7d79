import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Debian's supysonic (a Subsonic server in Python, API 1.10.2) on 127.0.0.1, with its own
 * config and SQLite database in a temporary folder and one user made with its CLI: the
 * reference our /rest answers are compared with (src/subsonic/supysonic.test.ts). Served by
 * Flask's own server (Debian ships supysonic without a WSGI server).
 */
export interface Supysonic {
  url: string
  username: string
  password: string
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

export async function startSupysonic(): Promise<Supysonic> {
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-supysonic-'))
  writeFileSync(
    join(dir, 'supysonic.conf'),
    [
      '[base]',
      `database_uri = sqlite:///${join(dir, 'supysonic.db')}`,
      '[webapp]',
      `cache_dir = ${join(dir, 'cache')}`,
      'mount_webui = off',
      'log_level = ERROR',
      '[daemon]',
      `socket = ${join(dir, 'daemon.sock')}`,
      '',
    ].join('\n'),
  )
  const env = { ...process.env, HOME: dir }
  const username = 'alice'
  const password = 'sup3r secret'
  const add = Bun.spawn(['supysonic-cli', 'user', 'add', username, '--password', password], { cwd: dir, env, stdout: 'ignore', stderr: 'pipe' })
  if ((await add.exited) !== 0) throw new Error(`supysonic-cli user add failed: ${await new Response(add.stderr).text()}`)
  const port = await freePort()
  const proc = Bun.spawn(
    ['/usr/bin/python3', '-c', `from supysonic.web import create_application\ncreate_application().run(host="127.0.0.1", port=${port})`],
    { cwd: dir, env, stdout: 'ignore', stderr: 'ignore' },
  )
  const url = `http://127.0.0.1:${port}`
  const until = Date.now() + 30_000
  for (;;) {
    try {
      await fetch(`${url}/rest/ping.view?f=json`)
      break
    } catch {
      if (Date.now() > until || proc.exitCode !== null) {
        proc.kill()
        throw new Error('supysonic did not start')
      }
      await Bun.sleep(100)
    }
  }
  return {
    url,
    username,
    password,
    async stop() {
      proc.kill()
      await proc.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
