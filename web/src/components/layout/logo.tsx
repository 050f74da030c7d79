import type { SVGProps } from 'react'

/** Tunefeed mark: a play button whose right side turns into sound waves. */
export function Logo(props: SVGProps<SVGSVGElement>) {
  return (
    <svg viewBox="0 0 32 32" width="32" height="32" aria-hidden {...props}>
      <defs>
        <linearGradient id="tunefeed-logo" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#8da4ef" />
          <stop offset="1" stopColor="#5b5bd6" />
        </linearGradient>
      </defs>
      <rect width="32" height="32" rx="8" fill="url(#tunefeed-logo)" />
      <path d="M10 9.5v13l9-6.5z" fill="#fff" />
      <path d="M21.5 12.5a5 5 0 0 1 0 7" stroke="#fff" strokeWidth="2" strokeLinecap="round" fill="none" />
      <path d="M24.5 10a9 9 0 0 1 0 12" stroke="#fff" strokeWidth="2" strokeLinecap="round" fill="none" opacity="0.7" />
    </svg>
  )
}
