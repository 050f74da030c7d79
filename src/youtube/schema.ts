import { z } from 'zod'
import { printable } from '../lib/fields.ts'

// Request shapes of the video area, shared with the web app.

const flag = z
  .enum(['true', 'false', '1', '0', ''], { error: 'must be true or false' })
  .optional()
  .transform((v) => v === 'true' || v === '1')

const page = z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').default(1)
const perPage = z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100').default(48)

export const pageQuery = z.object({ page, per_page: perPage })

export const videoListQuery = z.object({
  page,
  per_page: perPage,
  video_categories: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v) return []
      const ids = v.split(',').map((s) => s.trim()).filter(Boolean)
      if (ids.length > 50 || ids.some((s) => !/^\d{1,4}$/.test(s))) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated category ids' })
        return z.NEVER
      }
      return [...new Set(ids.map(Number))]
    }),
  channel_id: printable(z.string()).max(64, 'is too long').optional(),
  liked_only: flag,
  queued_only: flag,
  hide_watched: flag,
  hide_shorts: flag,
  hide_live: flag,
  q: printable(z.string()).max(200, 'is too long').optional(),
  group: printable(z.string()).max(64, 'is too long').optional(),
})

export const channelRefQuery = z.object({
  channel_id: printable(z.string({ error: 'Required' })).trim().min(1, 'Required').max(200, 'is too long'),
})

export const userChannelBody = z.object({
  channel_id: printable(z.string({ error: 'Required' })).trim().min(1, 'Required').max(200, 'is too long'),
})

export const videoQuery = z.object({
  related_videos_length: z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(0, 'must be at least 0')
    .max(50, 'must be at most 50')
    .default(4),
})

export const progressBody = z
  .object({
    playedSeconds: z.number({ error: 'must be a number' }).finite().min(0, 'must be at least 0').max(7 * 24 * 3600),
    duration: z.number({ error: 'must be a number' }).finite().min(0, 'must be at least 0').max(7 * 24 * 3600),
  })
  .refine((b) => b.duration === 0 || b.playedSeconds <= b.duration + 1, {
    message: 'must not exceed duration',
    path: ['playedSeconds'],
  })

export type ImportResult = {
  format: 'takeout-csv' | 'newpipe-json' | 'opml'
  added: number
  alreadyPresent: number
  notFound: number
}
