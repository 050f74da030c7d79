import { z } from 'zod'
import { printable, required } from '../../lib/fields.ts'

// Request shapes of groups, muted words and DeArrow, shared with the web app.

const channelIds = z
  .array(printable(z.string({ error: 'must be channel ids' })).max(64, 'is too long'), { error: required })
  .max(1000, 'must be at most 1000 channels')

export const groupBody = z.object({
  name: printable(z.string({ error: required })).trim().min(1, 'must be 1-100 characters').max(100, 'must be 1-100 characters'),
  channelIds,
})
export const groupPatch = groupBody.partial()

export const MUTED_WORDS_MAX = 100
export const filtersBody = z.object({
  mutedWords: z
    .array(
      printable(z.string({ error: 'must be words' }))
        .min(1, 'each must be 1-50 characters')
        .max(50, 'each must be 1-50 characters')
        .refine((w) => /[\p{L}\p{N}]/u.test(w), 'each needs a letter or digit'),
      { error: required },
    )
    .max(MUTED_WORDS_MAX, `must be at most ${MUTED_WORDS_MAX} words`),
})

export const DEARROW_MODES = ['off', 'titles', 'titles_thumbnails'] as const
export type DearrowMode = (typeof DEARROW_MODES)[number]
export const dearrowBody = z.object({
  mode: z.enum(DEARROW_MODES, { error: 'must be off, titles or titles_thumbnails' }),
})
