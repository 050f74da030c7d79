import { z } from 'zod'

const optionalUrl = z
  .string()
  .trim()
  .max(2000)
  .transform((v) => v || null)
  .pipe(z.url({ protocol: /^https?$/, error: 'Invalid Link' }).nullable())
  .nullable()
  .optional()

/**
 * Body of PUT /api/notifications. A URL left out, or sent back as GET shows it
 * (masked: scheme and host only), keeps the stored one; null or "" removes it.
 */
export const notificationSettingsBody = z
  .object({
    ntfyUrl: optionalUrl,
    webhookUrl: optionalUrl,
    onJobFinished: z.boolean().default(true),
    onJobFailed: z.boolean().default(true),
    onNewVideos: z.boolean().default(true),
  })
  .strict()

/** A user's settings (GET and PUT answer them with the URLs masked). */
export interface NotificationSettings {
  ntfyUrl: string | null
  webhookUrl: string | null
  onJobFinished: boolean
  onJobFailed: boolean
  onNewVideos: boolean
}

/** One message, as a webhook receives it (JSON) and ntfy shows it. */
export interface Notification {
  /** `admin.alert` and `tools.canary`: something only an admin can fix (src/notifications/admins.ts). */
  event: 'job.finished' | 'job.failed' | 'videos.new' | 'test' | 'tools.canary' | 'admin.alert'
  title: string
  text: string
  /** Where a click goes (this server's page), when PUBLIC_URL is known. */
  url: string | null
  /** For `videos.new`: each new video with its link. */
  items: { title: string; url: string }[]
}
