import { z } from 'zod'

const optionalUrl = z
  .string()
  .trim()
  .max(2000)
  .transform((v) => v || null)
  .pipe(z.url({ protocol: /^https?$/, error: 'Invalid Link' }).nullable())
  .nullable()
  .default(null)

/** Body of PUT /api/notifications (and its answer, with GET). */
export const notificationSettingsBody = z
  .object({
    ntfyUrl: optionalUrl,
    webhookUrl: optionalUrl,
    onJobFinished: z.boolean().default(true),
    onJobFailed: z.boolean().default(true),
    onNewVideos: z.boolean().default(true),
  })
  .strict()

export type NotificationSettings = z.output<typeof notificationSettingsBody>

/** One message, as a webhook receives it (JSON) and ntfy shows it. */
export interface Notification {
  /** `admin.alert`: something only an admin can fix (src/notifications/admins.ts). */
  event: 'job.finished' | 'job.failed' | 'videos.new' | 'test' | 'admin.alert'
  title: string
  text: string
  /** Where a click goes (this server's page), when PUBLIC_URL is known. */
  url: string | null
  /** For `videos.new`: each new video with its link. */
  items: { title: string; url: string }[]
}
