import { styled } from 'styled-system/jsx'
import { DialogPanel, DialogRoot } from '~/components/ui/dialog.tsx'
import { SHORTCUTS } from '../use-shortcuts.ts'

export type ShortcutsDialogProps = {
  open: boolean
  onOpenChange(open: boolean): void
  /** Lists shift+n / shift+p only where there is a next and previous video. */
  withQueue?: boolean
}

/** The dialog '?' opens: every keyboard shortcut of the player. */
export function ShortcutsDialog({ open, onOpenChange, withQueue = true }: ShortcutsDialogProps) {
  const rows = SHORTCUTS.filter((s) => withQueue || !s.needs)
  return (
    <DialogRoot open={open} onOpenChange={(d) => onOpenChange(d.open)}>
      <DialogPanel title="Keyboard shortcuts">
        <styled.dl display="grid" gridTemplateColumns="auto 1fr" columnGap="6" rowGap="3" alignItems="center">
          {rows.map((s) => (
            <styled.div key={s.action} display="contents">
              <styled.dt display="flex" gap="1">
                {s.keys.map((k) => (
                  <styled.kbd
                    key={k}
                    px="2"
                    py="0.5"
                    minW="7"
                    textAlign="center"
                    borderWidth="1px"
                    borderBottomWidth="2px"
                    borderRadius="l1"
                    bg="gray.a2"
                    textStyle="xs"
                    fontFamily="mono"
                  >
                    {k}
                  </styled.kbd>
                ))}
              </styled.dt>
              <styled.dd textStyle="sm" color="fg.muted">
                {s.action}
              </styled.dd>
            </styled.div>
          ))}
        </styled.dl>
      </DialogPanel>
    </DialogRoot>
  )
}
