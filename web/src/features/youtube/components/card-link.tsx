import { useRouter } from '@tanstack/react-router'
import type { AnchorHTMLAttributes, MouseEvent } from 'react'

export const videoPath = (id: string) => `/youtube/video/${encodeURIComponent(id)}`
export const channelPath = (id: string) => `/youtube/channel/${encodeURIComponent(id)}`

/**
 * A plain anchor that navigates through the router on a plain left click
 * (modified clicks open tabs as usual). The router's <Link> builds and
 * watches its location on every render; with 48 cards of 4 links each that
 * was most of the grid's render time, so card grids use this instead.
 */
export function CardLink({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const router = useRouter()
  const go = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e)
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || rest.target) return
    e.preventDefault()
    void router.navigate({ href })
  }
  return <a href={href} onClick={go} {...rest} />
}

/** `?a=b` the way the router writes search params (so the target route reads them back). */
export function useSearchString() {
  const router = useRouter()
  return (search: Record<string, unknown>) => router.options.stringifySearch(search)
}
