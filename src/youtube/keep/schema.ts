import { z } from 'zod'
import type { ErrorKind } from '../../tools/failure.ts'

// Request and answer shapes of keeping videos (docs/api.md "Keeping videos"), shared with the web app.

export const KEEP_HEIGHTS = [360, 480, 720, 1080, 1440, 2160] as const
export const DEFAULT_KEEP = { enabled: false, keepLast: 20, maxHeight: 1080, deleteWatchedAfterDays: null, includeShorts: false } as const

const height = z
  .number({ error: 'must be a number' })
  .refine((h) => (KEEP_HEIGHTS as readonly number[]).includes(h), `must be one of ${KEEP_HEIGHTS.join(', ')}`)

/** `PUT /api/youtube/channels/{id}/keep`: fields left out keep their current value (or the default). */
export const keepRuleBody = z.object({
  enabled: z.boolean({ error: (i) => (i.input === undefined ? 'Required' : 'must be true or false') }),
  keepLast: z.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').max(500, 'must be at most 500').optional(),
  maxHeight: height.optional(),
  deleteWatchedAfterDays: z.number({ error: 'must be a number or null' }).int('must be an integer').min(0, 'must be at least 0').max(365, 'must be at most 365').nullable().optional(),
  includeShorts: z.boolean({ error: 'must be true or false' }).optional(),
})

/** `PUT /api/youtube/videos/{id}/keep`. */
export const keepVideoBody = z.object({ maxHeight: height.optional() })

export interface KeepRuleJson {
  enabled: boolean
  keepLast: number
  maxHeight: number
  deleteWatchedAfterDays: number | null
  includeShorts: boolean
}

export type KeptState = 'queued' | 'fetching' | 'ready' | 'failed'

/** A video object's `kept`. */
export interface KeptJson {
  state: KeptState
  maxHeight: number
  height: number | null
  sizeBytes: number | null
  pinned: boolean
  error: string | null
  errorKind: ErrorKind | null
}
