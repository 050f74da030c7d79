import { type FocusEvent, type PointerEvent, type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react'
import { createPortal } from 'react-dom'
import { css, cx } from 'styled-system/css'
import { tooltip } from 'styled-system/recipes'

/** Hover delay before a tooltip opens, and how long a tap keeps one open. */
const OPEN_DELAY_MS = 300
const TOUCH_OPEN_MS = 2500

const classes = tooltip()
const bubble = cx(
  classes.content,
  css({
    position: 'fixed',
    zIndex: 'tooltip',
    pointerEvents: 'none',
    transform: 'translate(-50%, calc(-100% - 8px))',
    maxW: 'xs',
    whiteSpace: 'nowrap',
  }),
)

type Shown = { el: HTMLElement; text: string; x: number; y: number }

function targetOf(node: EventTarget | null): HTMLElement | null {
  return node instanceof Element ? (node.closest('[data-tooltip]') as HTMLElement | null) : null
}

/**
 * One tooltip for a whole grid of cards: any element inside with a
 * `data-tooltip` text shows it on hover, keyboard focus and touch (docs/product.md#layout:
 * tooltips open on hover and touch). A grid of 48 cards would otherwise run
 * about 150 tooltip state machines; this keeps the grid cheap to render.
 */
export function TooltipLayer({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState<Shown | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  const id = useId()

  const show = useCallback((el: HTMLElement) => {
    const text = el.dataset.tooltip
    if (!text) return
    const r = el.getBoundingClientRect()
    const x = Math.min(Math.max(r.left + r.width / 2, 80), window.innerWidth - 80)
    setShown({ el, text, x, y: r.top })
  }, [])
  const hide = useCallback(() => {
    clearTimeout(timer.current)
    setShown(null)
  }, [])

  useEffect(() => () => clearTimeout(timer.current), [])
  useEffect(() => {
    if (!shown) return
    shown.el.setAttribute('aria-describedby', id)
    window.addEventListener('scroll', hide, { passive: true, capture: true })
    return () => {
      shown.el.removeAttribute('aria-describedby')
      window.removeEventListener('scroll', hide, { capture: true })
    }
  }, [shown, id, hide])

  const onPointerOver = (e: PointerEvent) => {
    if (e.pointerType === 'touch') return
    const el = targetOf(e.target)
    if (!el || el === shown?.el) return
    clearTimeout(timer.current)
    setShown(null)
    timer.current = setTimeout(() => show(el), OPEN_DELAY_MS)
  }
  const onPointerOut = (e: PointerEvent) => {
    if (e.pointerType === 'touch') return
    const from = targetOf(e.target)
    if (from && from.contains(e.relatedTarget as Node | null)) return
    hide()
  }
  const onPointerDown = (e: PointerEvent) => {
    const el = targetOf(e.target)
    if (e.pointerType !== 'touch' || !el) return
    clearTimeout(timer.current)
    show(el)
    timer.current = setTimeout(() => setShown(null), TOUCH_OPEN_MS)
  }
  const onFocus = (e: FocusEvent) => {
    const el = targetOf(e.target)
    if (el && (e.target as Element).matches(':focus-visible')) show(el)
  }
  // a click may change the text (Queue becomes Unqueue): read it again
  const onClick = () => {
    if (shown) requestAnimationFrame(() => shown.el.isConnected && show(shown.el))
  }

  return (
    <div onPointerOver={onPointerOver} onPointerOut={onPointerOut} onPointerDown={onPointerDown} onFocus={onFocus} onBlur={hide} onClick={onClick}>
      {children}
      {shown &&
        createPortal(
          <div id={id} role="tooltip" className={bubble} data-state="open" style={{ left: shown.x, top: shown.y }}>
            {shown.text}
          </div>,
          document.body,
        )}
    </div>
  )
}
