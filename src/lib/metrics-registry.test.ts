import { describe, expect, test } from 'bun:test'
import { Counter, gauge, Histogram } from './metrics-registry.ts'
import { queueConnection } from '../jobs/start.ts'
import { parseEnv } from '../env.ts'
import { Hub } from '../ws/hub.ts'

describe('Prometheus text', () => {
  test('counters keep one line per label set, escaped', () => {
    const c = new Counter('x_total', 'Things.')
    c.inc({ route: '/a', status: '200' })
    c.inc({ status: '200', route: '/a' }, 2) // same labels, any order
    c.inc({ route: 'say "hi"\\n' })
    expect(c.render()).toEqual([
      '# HELP x_total Things.',
      '# TYPE x_total counter',
      'x_total{route="/a",status="200"} 3',
      'x_total{route="say \\"hi\\"\\\\n"} 1',
    ])
  })

  test('histograms are cumulative with +Inf, sum and count', () => {
    const h = new Histogram('d_seconds', 'Time.', [0.1, 1])
    for (const v of [0.05, 0.5, 5]) h.observe({ job: 'a' }, v)
    expect(h.render().slice(2)).toEqual([
      'd_seconds_bucket{job="a",le="0.1"} 1',
      'd_seconds_bucket{job="a",le="1"} 2',
      'd_seconds_bucket{job="a",le="+Inf"} 3',
      'd_seconds_sum{job="a"} 5.55',
      'd_seconds_count{job="a"} 3',
    ])
  })

  test('gauges', () => {
    expect(gauge('g', 'G.', [{ value: 2 }, { labels: { state: 'active' }, value: 1 }]).slice(2)).toEqual(['g 2', 'g{state="active"} 1'])
  })
})

describe('QUEUE_URL', () => {
  test('parses into bunqueue connection options', () => {
    expect(queueConnection('bunqueue://127.0.0.1:6789')).toEqual({ host: '127.0.0.1', port: 6789 })
    expect(queueConnection('bunqueue://s3cr%2Ft@queue.internal:7000/')).toEqual({ host: 'queue.internal', port: 7000, token: 's3cr/t' })
  })

  test('is validated at start-up', () => {
    expect(parseEnv({ QUEUE_URL: 'bunqueue://localhost:6789' }).QUEUE_URL).toBe('bunqueue://localhost:6789')
    for (const bad of ['localhost:6789', 'redis://localhost:6379', 'bunqueue://localhost']) expect(() => parseEnv({ QUEUE_URL: bad })).toThrow(/QUEUE_URL/)
  })
})

describe('Hub origins', () => {
  test('local messages are marked local, bridged ones remote (so a bridge never forwards them again)', () => {
    const hub = new Hub()
    const seen: string[] = []
    hub.listen((topic, _m, origin) => seen.push(`${topic}:${origin}`))
    hub.publish('t', { a: 1 })
    hub.receive('t', { a: 2 })
    expect(seen).toEqual(['t:local', 't:remote'])
    expect(hub.socketCount()).toBe(0)
  })
})
