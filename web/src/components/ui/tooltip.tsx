import { Tooltip as ArkTooltip } from '@ark-ui/react/tooltip'
import { Portal } from '@ark-ui/react/portal'
import { type ReactElement, type ReactNode, useEffect, useRef, useState } from 'react'
import { createStyleContext } from 'styled-system/jsx'
import { tooltip } from 'styled-system/recipes'

const { withRootProvider, withContext } = createStyleContext(tooltip)

const Root = withRootProvider(ArkTooltip.Root)
const Trigger = withContext(ArkTooltip.Trigger, 'trigger')
const Positioner = withContext(ArkTooltip.Positioner, 'positioner')
const Content = withContext(ArkTooltip.Content, 'content')

/** How long a tooltip opened by a tap stays visible. */
const TOUCH_OPEN_MS = 2500

export type TooltipProps = {
  content: ReactNode
  /** One focusable element (a button or link); it becomes the trigger. */
  children: ReactElement
  placement?: 'top' | 'bottom' | 'left' | 'right'
  openDelay?: number
  disabled?: boolean
}

/**
 * Tooltip that opens on hover and focus like any other, and also on touch:
 * Ark ignores touch pointers, so a tap opens it for a moment here.
 */
export function Tooltip({ content, children, placement = 'top', openDelay = 300, disabled }: TooltipProps) {
  const [open, setOpen] = useState(false)
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  const touchOpenUntil = useRef(0)
  useEffect(() => () => clearTimeout(timer.current), [])
  if (disabled) return children
  return (
    <Root
      open={open}
      onOpenChange={(d) => {
        // lifting a finger sends pointerleave, which would close a tooltip opened by that tap
        if (!d.open && Date.now() < touchOpenUntil.current) return
        setOpen(d.open)
      }}
      openDelay={openDelay}
      closeDelay={100}
      closeOnPointerDown={false}
      closeOnClick={false}
      positioning={{ placement }}
      lazyMount
      unmountOnExit
    >
      <Trigger
        asChild
        onPointerDown={(e) => {
          if (e.pointerType !== 'touch') return
          setOpen(true)
          touchOpenUntil.current = Date.now() + TOUCH_OPEN_MS
          clearTimeout(timer.current)
          timer.current = setTimeout(() => setOpen(false), TOUCH_OPEN_MS)
        }}
      >
        {children}
      </Trigger>
      <Portal>
        <Positioner>
          <Content>{content}</Content>
        </Positioner>
      </Portal>
    </Root>
  )
}
