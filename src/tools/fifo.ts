/**
 * The FIFO the conversion writes its measuring branch into (loudness.ts):
 * made with libc's mkfifo, and enlarged to 1 MB (fcntl F_SETPIPE_SZ) so the
 * reader can take it in a few large reads instead of waking for every 32 KB
 * write (docs/decisions/135-replaygain-reads-paced.md). Both through bun:ffi
 * on Linux; elsewhere, or when libc cannot be opened, `mkfifo` is run as a
 * command and the pipe keeps its size (the reads are then not paced).
 */
import { runProcess } from '../lib/process.ts'

interface Libc {
  mkfifo(path: Uint8Array, mode: number): number
  fcntl(fd: number, command: number, arg: number): number
}

const F_SETPIPE_SZ = 1031
/** What the reader asks for: Linux's default limit for unprivileged processes (/proc/sys/fs/pipe-max-size). */
export const PIPE_BYTES = 1 << 20

let libc: Libc | null | undefined
function openLibc(): Libc | null {
  if (libc !== undefined) return libc
  libc = null
  if (process.platform !== 'linux') return libc
  try {
    const { dlopen, FFIType } = require('bun:ffi') as typeof import('bun:ffi')
    const lib = dlopen('libc.so.6', {
      mkfifo: { args: [FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
      fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    })
    libc = lib.symbols as unknown as Libc
  } catch {
    // not glibc (musl names it differently), or no FFI: the fallbacks below
  }
  return libc
}

/** Makes a FIFO only its owner can use; throws when it cannot. */
export async function makeFifo(path: string): Promise<void> {
  const lib = openLibc()
  if (lib) {
    if (lib.mkfifo(Buffer.from(`${path}\0`), 0o600) !== 0) throw new Error(`mkfifo ${path} failed`)
    return
  }
  if ((await runProcess(['mkfifo', '-m', '600', path])).code !== 0) throw new Error(`mkfifo ${path} failed`)
}

/** Enlarges the pipe behind `fd` to PIPE_BYTES; its size in bytes, or 0 when unknown (not enlarged). */
export function enlargePipe(fd: number): number {
  const size = openLibc()?.fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES) ?? -1
  return Math.max(size, 0)
}
