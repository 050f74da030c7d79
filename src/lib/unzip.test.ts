import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipOf } from '../../tests/support/deno-release.ts'
import { readZipEntry, ZipError } from './unzip.ts'

// The reader the managed Deno unpacks its release zip with, against archives checked by Info-ZIP's
// unzip (Debian's) and, where installed, made by Info-ZIP's zip.
const data = new TextEncoder().encode('#!/bin/sh\necho "deno 2.9.6 (stable, release, x86_64-unknown-linux-gnu)"\n'.repeat(50))
const hasZip = spawnSync('zip', ['-v']).status === 0

describe('readZipEntry', () => {
  test('stored and deflated entries come out whole; unzip reads the same archives', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-unzip-'))
    try {
      for (const deflate of [false, true]) {
        const zip = zipOf([{ name: 'README.md', data: new Uint8Array([1, 2, 3]) }, { name: 'deno', data }], { deflate })
        expect(readZipEntry(zip, 'deno', 1 << 20)).toEqual(data)
        writeFileSync(join(dir, 'a.zip'), zip)
        const unzip = spawnSync('unzip', ['-p', join(dir, 'a.zip'), 'deno'])
        expect(unzip.status).toBe(0)
        expect(new Uint8Array(unzip.stdout)).toEqual(data)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test.skipIf(!hasZip)('reads an archive made by Info-ZIP zip', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-unzip-'))
    try {
      writeFileSync(join(dir, 'deno'), data)
      expect(spawnSync('zip', ['-q', '-9', 'out.zip', 'deno'], { cwd: dir }).status).toBe(0)
      expect(readZipEntry(new Uint8Array(readFileSync(join(dir, 'out.zip'))), 'deno', 1 << 20)).toEqual(data)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('refuses a damaged entry, a missing one, an oversized one and what is not a ZIP', () => {
    const zip = zipOf([{ name: 'deno', data }], { deflate: false })
    const damaged = zip.slice()
    damaged[40] = damaged[40]! ^ 0xff // inside the stored data
    expect(() => readZipEntry(damaged, 'deno', 1 << 20)).toThrow(/CRC-32/)
    expect(() => readZipEntry(zip, 'node', 1 << 20)).toThrow(/holds no node/)
    expect(() => readZipEntry(zip, 'deno', 10)).toThrow(/more than 10/)
    expect(() => readZipEntry(new TextEncoder().encode('<html>Not Found</html>'), 'deno', 1 << 20)).toThrow(ZipError)
  })
})
