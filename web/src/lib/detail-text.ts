/** Names the user sees for the form fields a server `detail` may start with (`video_url: ...`). */
const FIELD_NAMES: Record<string, string> = {
  video_url: 'Video link',
  artwork_url: 'Artwork link',
  url: 'URL',
}

/**
 * A server `detail` as a sentence for a toast or alert: a leading `field_name: `
 * becomes the field's name in words and the rest starts with a capital,
 * e.g. "video_url: only http and https links can be used" gives
 * "Video link: Only http and https links can be used".
 */
export function detailText(detail: string): string {
  const m = /^([a-z][a-z0-9]*(?:_[a-z0-9]+)*): (\S[\s\S]*)$/.exec(detail)
  if (!m) return detail
  const [, field, rest] = m as unknown as [string, string, string]
  const name = FIELD_NAMES[field] ?? field.charAt(0).toUpperCase() + field.slice(1).replaceAll('_', ' ')
  return `${name}: ${rest.charAt(0).toUpperCase()}${rest.slice(1)}`
}
