// Baseline for scripts/bench/http.ts: the smallest Hono app on Bun, on 127.0.0.1.
// Prints `listening <port>` once it serves.
import { Hono } from 'hono'

const app = new Hono().get('/', (c) => c.text('Hello Hono!'))
const server = Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT ?? 0), fetch: app.fetch })
console.log(`listening ${server.port}`)
process.on('SIGTERM', () => {
  server.stop(true)
  process.exit(0)
})
