/**
 * A job without a description of its own, named in words from its kind ("youtube.podcastEpisode"
 * → "YouTube: podcast episode"), so the Job column does not repeat the Kind column's code.
 */
export function kindWords(name: string): string {
  const [area = '', ...rest] = name.split('.')
  const what = rest.join(' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
  const place = area === 'youtube' ? 'YouTube' : area.charAt(0).toUpperCase() + area.slice(1)
  return what ? `${place}: ${what}` : place
}
