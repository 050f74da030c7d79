#!/usr/bin/env bun
/**
 * `npm start`: builds what the server serves only when it is missing or older
 * than its sources (the web app: about 25 s the first time; the PGlite seed:
 * a few seconds the first time), then starts the server in this same process.
 * A start with nothing changed goes straight to the server.
 */
import { buildWebIfNeeded } from './web-build.ts'
import { buildSeed } from './build-seed.ts'

const webError = buildWebIfNeeded((line) => console.log(`[start] ${line}`))
if (webError) {
  console.error(`[start] ${webError}. Fix the build (its output is above), then run npm start again.`)
  process.exit(1)
}
if (await buildSeed()) console.log('[start] built the first-start database (dist/pglite-seed.tar.gz)')
await import('../src/main.ts')
