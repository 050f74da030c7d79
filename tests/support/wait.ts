/** Polls `probe` until it gives a truthy value (returned) or `timeout` ms pass (throws naming `what`). */
export async function until<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeout = 30_000,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeout
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(everyMs)
  }
}
