import { UndoIcon, XIcon } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import { css, cx } from 'styled-system/css'
import { Button, IconButton } from '~/components/ui/button.tsx'
import type { SegmentNotice as Notice } from '../use-segment-actions.ts'

/** How long a notice stays; never while the pointer or the keyboard focus is on it. */
export const NOTICE_MS = 15_000

const box = css({
  display: 'flex',
  alignItems: 'center',
  gap: '2',
  '&:not([data-active])': { pointerEvents: 'none' },
  '&[data-active]': { py: '1.5', ps: '3', pe: '1.5', borderRadius: 'l2', bg: 'bg.default', borderWidth: '1px', borderColor: 'border.default', boxShadow: 'md' },
})
// above the 100 px footer and listen mode's strip (its height, set by the strip), right side (the
// footer clips what overflows it, a fixed box is not clipped); at phone width it wraps, never cut
const floating = css({
  position: 'fixed',
  right: { base: '3', md: '5' },
  bottom: 'calc(var(--footer-height, 0px) + var(--listen-strip-height, 0px) + 12px)',
  zIndex: 'popover',
  maxW: 'calc(100vw - 24px)',
})
const inline = css({ alignSelf: 'flex-start', '&:not([data-active])': { srOnly: true } })
const words = css({ textStyle: 'sm', fontWeight: 'medium', minW: '0', overflowWrap: 'anywhere', _focusVisible: { outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '2px' } })

/**
 * The player's SponsorBlock notice ("Skipped a sponsor segment (0:42)", Go back). The words are a
 * polite live region that is always in the page (a region added with its words is often not
 * read), so screen readers say each notice; Go back and Close are ordinary buttons in the tab
 * order. After Go back the focus moves to the words that say so (the button is gone).
 */
export function SegmentNoticeView({
  notice,
  onGoBack,
  onDismiss,
  placement = 'inline',
}: {
  notice: Notice | null
  onGoBack(): void
  onDismiss(): void
  /** `floating`: above the footer player; `inline`: in the page's flow (the video page). */
  placement?: 'floating' | 'inline'
}) {
  const root = useRef<HTMLDivElement>(null)
  const text = useRef<HTMLParagraphElement>(null)
  const [held, setHeld] = useState({ focus: false, hover: false })
  const holding = held.focus || held.hover
  const key = notice?.key

  // biome-ignore lint/correctness/useExhaustiveDependencies: each notice (key) gets its own time
  useEffect(() => {
    if (key === undefined || holding) return
    const timer = setTimeout(onDismiss, NOTICE_MS)
    return () => clearTimeout(timer)
  }, [key, holding])

  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset is for form fields; this names the notice's buttons for screen readers
    <div
      ref={root}
      className={cx(box, placement === 'floating' ? floating : inline)}
      data-active={notice ? '' : undefined}
      role="group"
      aria-label="SponsorBlock notice"
      data-testid="segment-notice"
      onFocus={() => setHeld((h) => ({ ...h, focus: true }))}
      onBlur={(e) => !root.current?.contains(e.relatedTarget as Node | null) && setHeld((h) => ({ ...h, focus: false }))}
      onMouseEnter={() => setHeld((h) => ({ ...h, hover: true }))}
      onMouseLeave={() => setHeld((h) => ({ ...h, hover: false }))}
    >
      <p ref={text} role="status" aria-live="polite" aria-atomic="true" tabIndex={-1} className={words}>
        {notice?.text}
      </p>
      {notice?.segment && (
        <Button
          size="xs"
          variant="outline"
          onClick={() => {
            onGoBack()
            requestAnimationFrame(() => text.current?.focus())
          }}
        >
          <UndoIcon />
          Go back
        </Button>
      )}
      {notice && (
        <IconButton aria-label="Close notice" size="xs" variant="ghost" onClick={onDismiss}>
          <XIcon />
        </IconButton>
      )}
    </div>
  )
}
