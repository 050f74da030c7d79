import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'

export class LockedError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Takes an exclusive lock file holding our pid. A lock left by a dead process
 * is taken over; a live holder makes this throw. Returns the release function.
 */
export function acquireLock(path: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      let released = false
      const release = () => {
        if (released) return
        released = true
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) rmSync(path)
        } catch {}
      }
      process.once('exit', release)
      return release
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const pid = Number(readFileSync(path, 'utf8').trim())
      if (pid && pid !== process.pid && alive(pid)) {
        throw new LockedError(`${path} is held by process ${pid}: another Tunefeed is using this data folder`)
      }
      rmSync(path, { force: true })
    }
  }
  throw new LockedError(`could not take ${path}`)
}
