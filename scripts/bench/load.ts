// Bun-based load generator for scripts/bench/http.ts when wrk is not installed.
// Runs in its own process: `bun scripts/bench/load.ts <url> <seconds> <connections> [header: value]...`
// Loopback targets only. Prints one JSON line {requests, non2xx, errors, seconds, rps}.
const [url, secondsArg, connectionsArg, ...headerArgs] = process.argv.slice(2)
if (!url || !/^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\]|localhost)(:\d+)?\//.test(url)) {
  console.error('usage: load.ts http://127.0.0.1:PORT/path seconds connections [header: value]... (loopback only)')
  process.exit(2)
}
const seconds = Number(secondsArg ?? 5)
const connections = Number(connectionsArg ?? 32)
const headers = Object.fromEntries(headerArgs.map((h) => [h.slice(0, h.indexOf(':')).trim(), h.slice(h.indexOf(':') + 1).trim()]))

let requests = 0
let non2xx = 0
let errors = 0
const started = performance.now()
const deadline = started + seconds * 1000
await Promise.all(
  Array.from({ length: connections }, async () => {
    while (performance.now() < deadline) {
      try {
        const res = await fetch(url, { headers })
        await res.arrayBuffer()
        if (res.status < 200 || res.status >= 300) non2xx++
        requests++
      } catch {
        errors++
      }
    }
  }),
)
const elapsed = (performance.now() - started) / 1000
console.log(JSON.stringify({ requests, non2xx, errors, seconds: elapsed, rps: requests / elapsed }))

export {}
