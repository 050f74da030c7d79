/**
 * Files baked into the compiled binary (`scripts/build-binary.ts`). Inside
 * `bun build --compile` there is no web/dist, drizzle/ or node_modules on disk:
 * the generated entry imports them `with { type: 'file' }` (paths under
 * Bun's embedded /$bunfs) and registers them here before the server starts.
 * Running from source (`bun src/index.ts`) nothing is registered and every
 * reader falls back to the files on disk.
 */
export interface EmbeddedMigration {
  tag: string
  when: number
  breakpoints: boolean
  sql: string
}

export interface EmbeddedAssets {
  /** URL path of each built web file ('/index.html', '/assets/x.js') → its embedded path. */
  web: Record<string, string>
  /** drizzle/meta/_journal.json entries with their .sql text. */
  migrations: EmbeddedMigration[]
  /** PGlite's runtime files, which it cannot find inside the compiled file system by itself. */
  pglite: { pgliteWasm: string; initdbWasm: string; fsBundle: string }
  /** The migrated data folder a first start loads (src/db/seed.ts). */
  pgliteSeed?: string
  version: string
}

let assets: EmbeddedAssets | null = null

export function setEmbedded(value: EmbeddedAssets) {
  assets = value
}

/** The registered assets, or null when running from source. */
export function embedded(): EmbeddedAssets | null {
  return assets
}

let pgliteOptions: Promise<Record<string, unknown>> | undefined
let initdbModule: Promise<WebAssembly.Module> | undefined

/**
 * Extra `new PGlite()` options: the compiled wasm modules and data bundle, or `{}` from source.
 * initdb's module only when a database is to be created (a folder with data, or one
 * started from the seed, never runs initdb: compiling it cost time and memory at every start).
 */
export async function embeddedPgliteOptions(opts: { initdb: boolean } = { initdb: true }): Promise<Record<string, unknown>> {
  if (!assets) return {}
  const { pgliteWasm, initdbWasm, fsBundle } = assets.pglite
  pgliteOptions ??= (async () => ({
    pgliteWasmModule: await WebAssembly.compile(await Bun.file(pgliteWasm).arrayBuffer()),
    fsBundle: new Blob([await Bun.file(fsBundle).arrayBuffer()]),
  }))()
  if (!opts.initdb) return pgliteOptions
  initdbModule ??= Bun.file(initdbWasm).arrayBuffer().then((bytes) => WebAssembly.compile(bytes))
  return { ...(await pgliteOptions), initdbWasmModule: await initdbModule }
}

/** drizzle's migration list (what `readMigrationFiles` builds from the folder) from the embedded journal. */
export function embeddedMigrations() {
  if (!assets) return null
  const hasher = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex')
  return assets.migrations.map((m) => ({
    sql: m.sql.split('--> statement-breakpoint'),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: hasher(m.sql),
  }))
}
