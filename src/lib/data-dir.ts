import { chmodSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Start-up, before anything is written: every file the process creates is
 * private to its user (umask 077: PGlite's files, mail, media, the queue),
 * and DATA_DIR itself is 0700, also when an older version made it 0755.
 */
export function privateDataDir(dataDir: string) {
  process.umask(0o077)
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  chmodSync(dataDir, 0o700)
}

/**
 * Files 0600 and folders 0700 under `dir`. PGlite's file system layer sets
 * its own modes (0666) whatever the umask: the database folder is swept when
 * it opens and when it closes (while it runs, the 0700 folders above keep
 * anything it creates meanwhile private).
 */
export function privateTree(dir: string) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      chmodSync(path, 0o700)
      privateTree(path)
    } else if (entry.isFile()) chmodSync(path, 0o600)
  }
}
