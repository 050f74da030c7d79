import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A small tmpfs mounted on a fresh folder, for disk-full tests: a data folder
 * that really runs out of space. Needs root (or CAP_SYS_ADMIN); where the
 * mount is refused, `mountTmpfs` returns the reason and the test skips.
 */
export interface Tmpfs {
  /** The mount point. */
  dir: string
  /** Free bytes right now. */
  free(): number
  /** Fills the file system until `leaveBytes` are left (a file `filler` in the mount point). */
  fill(leaveBytes: number): void
  /** Removes the filler. */
  unfill(): void
  unmount(): void
}

export function mountTmpfs(size: string): Tmpfs | string {
  if (process.getuid?.() !== 0) return 'not root: mounting a tmpfs needs root'
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-tmpfs-'))
  const mount = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stderr: 'pipe' })
  if (mount.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true })
    return `mount refused: ${mount.stderr.toString().trim() || `exit ${mount.exitCode}`}`
  }
  const filler = join(dir, 'filler')
  const free = () => {
    const s = statfsSync(dir)
    return Number(s.bavail) * Number(s.bsize)
  }
  return {
    dir,
    free,
    fill(leaveBytes) {
      rmSync(filler, { force: true })
      const size = Math.max(0, free() - leaveBytes)
      writeFileSync(filler, Buffer.alloc(size))
    },
    unfill: () => rmSync(filler, { force: true }),
    unmount() {
      Bun.spawnSync(['umount', '-l', dir])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A folder inside the mount (the mount point itself cannot be removed by a test app's close). */
export function dataDirOn(fs: Tmpfs, name = 'data'): string {
  const dir = join(fs.dir, name)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}
