import { z } from 'zod'

// Request shapes of listening (SponsorBlock settings, the podcast switch and its limits), shared with the web app.

/** SponsorBlock's categories the player handles, in the order the Account page lists them. */
export const SPONSORBLOCK_CATEGORIES = ['sponsor', 'selfpromo', 'interaction', 'intro', 'outro', 'preview', 'filler', 'music_offtopic'] as const
export type SponsorblockCategory = (typeof SPONSORBLOCK_CATEGORIES)[number]
export const SPONSORBLOCK_ACTIONS = ['skip', 'mute', 'show', 'off'] as const
export type SponsorblockAction = (typeof SPONSORBLOCK_ACTIONS)[number]

export const DEFAULT_SPONSORBLOCK: Record<SponsorblockCategory, SponsorblockAction> = {
  sponsor: 'skip',
  selfpromo: 'skip',
  interaction: 'skip',
  intro: 'off',
  outro: 'off',
  preview: 'off',
  filler: 'off',
  music_offtopic: 'off',
}

const action = z.enum(SPONSORBLOCK_ACTIONS, { error: 'must be skip, mute, show or off' })

/** `PUT /api/youtube/sponsorblock`: some or all categories; an unknown category is refused. */
export const sponsorblockBody = z.object({
  categories: z.strictObject(
    Object.fromEntries(SPONSORBLOCK_CATEGORIES.map((c) => [c, action.optional()])) as Record<SponsorblockCategory, z.ZodOptional<typeof action>>,
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown category ${issue.keys.join(', ')}; known: ${SPONSORBLOCK_CATEGORIES.join(', ')}` : issue.input === undefined ? 'Required' : 'must be an object of category: action') },
  ),
})

// ---- podcasts (the channel switch) ----

/** keepLast when a podcast is switched on without one. */
export const DEFAULT_KEEP_LAST = 10
/** The most episodes one podcast may keep. */
export const KEEP_LAST_MAX = 100

/** `PUT /api/youtube/channels/{id}/podcast`. */
export const podcastBody = z.object({
  enabled: z.boolean({ error: (i) => (i.input === undefined ? 'Required' : 'must be true or false') }),
  keepLast: z
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(KEEP_LAST_MAX, `must be at most ${KEEP_LAST_MAX}`)
    .optional(),
})
