/**
 * At most `n` of the calls run at once; the others wait their turn in order.
 * In-process only: what it bounds (child processes, memory) is per machine.
 */
export function limiter(n: number) {
  let running = 0
  const waiting: (() => void)[] = []
  return {
    get running() {
      return running
    },
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve))
      else running++
      try {
        return await fn()
      } finally {
        // the slot passes straight to the next in line (running stays counted)
        const next = waiting.shift()
        if (next) next()
        else running--
      }
    },
  }
}
