import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { copySources, dockerignore, parseDockerfile, runtimeEnv, staticProblems } from '../../scripts/check-dockerfile.ts'
import { REPO_ROOT } from '../support/server-process.ts'

// No Docker engine runs here: the Dockerfile is linted (scripts/check-dockerfile.ts);
// `bun scripts/check-dockerfile.ts --simulate` replays its build stage (docs/deploy.md).

const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8')

describe('Dockerfile', () => {
  test('passes the static checks', () => {
    expect(staticProblems()).toEqual([])
  })

  test('the checks catch what they claim to', () => {
    const broken = dockerfile
      .replace('COPY drizzle ./drizzle', 'COPY drizzle-missing ./drizzle')
      .replace(/USER tunefeed/, 'USER root')
      .replace(/ARG YTDLP_SHA256=\w+/, 'ARG YTDLP_SHA256=latest')
    const problems = staticProblems(broken, readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8'))
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('COPY source drizzle-missing does not exist'),
        'the runtime stage does not switch to a non-root USER',
        'YTDLP_SHA256 is not a SHA-256',
      ]),
    )
    // a source hidden by .dockerignore is caught too
    expect(staticProblems(dockerfile.replace('COPY web ./web', 'COPY web/dist ./web'), 'web/dist\n')).toEqual([
      expect.stringContaining('COPY source web/dist is excluded by .dockerignore'),
    ])
  })

  test('parsing: stages, continuations, COPY sources, ENV', () => {
    const ins = parseDockerfile(dockerfile)
    expect([...new Set(ins.map((i) => i.stage))]).toEqual(['build', 'runtime'])
    expect(copySources(ins).flatMap((c) => c.sources)).toEqual(
      expect.arrayContaining(['package.json', 'package-lock.json', 'drizzle', 'src', 'web', 'Caddyfile', 'deploy/tunefeed.caddy']),
    )
    expect(runtimeEnv(ins)).toMatchObject({ DATA_DIR: '/data', PORT: '3000' })
    // no YTDLP_PATH: the pinned /usr/local/bin/yt-dlp seeds the managed copy, which updates itself
    expect(runtimeEnv(ins).YTDLP_PATH).toBeUndefined()
    const ignored = dockerignore('node_modules\nweb/dist\n*.log\n')
    expect(ignored('node_modules/x/y.js')).toBe(true)
    expect(ignored('web/dist/index.html')).toBe(true)
    expect(ignored('web/src/main.tsx')).toBe(false)
    expect(ignored('server.log')).toBe(true)
  })
})
