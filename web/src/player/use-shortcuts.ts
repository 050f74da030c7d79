import { useEffect, useRef } from 'react'

export type ShortcutActions = {
  togglePlay(): void
  seekBy(seconds: number): void
  next?(): void
  previous?(): void
  showHelp(): void
}

/** The keys, as listed by '?'. */
export const SHORTCUTS: { keys: string[]; action: string; needs?: 'next' | 'previous' }[] = [
  { keys: ['Space', 'K'], action: 'Play or pause' },
  { keys: ['J'], action: 'Back 10 seconds' },
  { keys: ['L'], action: 'Forward 10 seconds' },
  { keys: ['Shift', 'N'], action: 'Next video', needs: 'next' },
  { keys: ['Shift', 'P'], action: 'Previous video', needs: 'previous' },
  { keys: ['?'], action: 'Show these shortcuts' },
]

const TYPING = 'input, textarea, select, [contenteditable=""], [contenteditable="true"]'
/** Elements that space already activates. */
const SPACE_TAKERS = 'button, a[href], summary, [role=button], [role=checkbox], [role=switch], [role=tab], [role=option], [role=slider], [role=menuitem]'

/** Whether a key press belongs to the player, not to a field or control that has focus. */
export function isPlayerKey(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'target'>): boolean {
  if (e.ctrlKey || e.metaKey || e.altKey) return false
  const target = e.target instanceof Element ? e.target : null
  if (target?.closest(TYPING)) return false
  if (e.key === ' ' && target?.closest(SPACE_TAKERS)) return false
  // a key meant for an open dialog or menu stays there
  if (target?.closest('[role=dialog], [role=alertdialog], [role=listbox], [role=menu]')) return false
  return true
}

/** Keyboard shortcuts of the active player: space/k, j/l, shift+n/shift+p, ?. */
export function usePlayerShortcuts(actions: ShortcutActions, enabled = true) {
  const latest = useRef(actions)
  latest.current = actions
  useEffect(() => {
    if (!enabled) return
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.repeat || !isPlayerKey(e)) return
      const a = latest.current
      const key = e.key
      let handled = true
      if (key === ' ' || key === 'k' || key === 'K') {
        if (key === 'K' && e.shiftKey) handled = false
        else a.togglePlay()
      } else if (key === 'j' && !e.shiftKey) a.seekBy(-10)
      else if (key === 'l' && !e.shiftKey) a.seekBy(10)
      else if (key === 'N' && e.shiftKey && a.next) a.next()
      else if (key === 'P' && e.shiftKey && a.previous) a.previous()
      else if (key === '?') a.showHelp()
      else handled = false
      if (handled) e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [enabled])
}
