/**
 * A small Prometheus registry (text exposition format 0.0.4): counters and
 * histograms kept in this process, gauges read when scraped. One registry per
 * process, like the process itself: with several app processes Prometheus
 * scrapes each (labels tell them apart) and sums.
 */
type Labels = Record<string, string>

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
const labelText = (labels: Labels) => {
  const keys = Object.keys(labels)
  return keys.length ? `{${keys.map((k) => `${k}="${escape(labels[k]!)}"`).join(',')}}` : ''
}
// Hot path (every request): a plain join of sorted names and values, no JSON or locale compare.
const key = (labels: Labels) => {
  let k = ''
  for (const name of Object.keys(labels).sort()) k += `${name}\u0001${labels[name]}\u0002`
  return k
}

export class Counter {
  private values = new Map<string, { labels: Labels; value: number }>()
  constructor(readonly name: string, readonly help: string) {}

  /** `k` may be passed precomputed (one string per label set) on hot paths. */
  inc(labels: Labels = {}, by = 1, k = key(labels)) {
    const entry = this.values.get(k) ?? { labels, value: 0 }
    entry.value += by
    this.values.set(k, entry)
  }

  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`, ...[...this.values.values()].map((e) => `${this.name}${labelText(e.labels)} ${e.value}`)]
  }
}

export class Histogram {
  private values = new Map<string, { labels: Labels; buckets: number[]; sum: number; count: number }>()
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: number[],
  ) {}

  observe(labels: Labels, value: number, k = key(labels)) {
    const entry = this.values.get(k) ?? { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 }
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]!) entry.buckets[i]!++
    entry.sum += value
    entry.count++
    this.values.set(k, entry)
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`]
    for (const e of this.values.values()) {
      this.bounds.forEach((b, i) => lines.push(`${this.name}_bucket${labelText({ ...e.labels, le: String(b) })} ${e.buckets[i]}`))
      lines.push(`${this.name}_bucket${labelText({ ...e.labels, le: '+Inf' })} ${e.count}`)
      lines.push(`${this.name}_sum${labelText(e.labels)} ${e.sum}`)
      lines.push(`${this.name}_count${labelText(e.labels)} ${e.count}`)
    }
    return lines
  }
}

/** A gauge whose samples are computed at scrape time. */
export function gauge(name: string, help: string, samples: { labels?: Labels; value: number }[]): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, ...samples.map((s) => `${name}${labelText(s.labels ?? {})} ${s.value}`)]
}

/** The process-wide instruments; /metrics renders them with the scrape-time gauges. */
export const metrics = {
  httpRequests: new Counter('tunefeed_http_requests_total', 'HTTP requests answered, by method, route and status.'),
  httpDuration: new Histogram(
    'tunefeed_http_request_duration_seconds',
    'Time to answer an HTTP request (until the response headers), by method and route.',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  ),
  jobsFinished: new Counter('tunefeed_jobs_finished_total', 'Job runs finished in this process, by job name and outcome (completed, retry, failed, cancelled, interrupted).'),
  jobDuration: new Histogram(
    'tunefeed_job_duration_seconds',
    'Run time of finished job runs in this process, by job name and outcome.',
    [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 900],
  ),
}
