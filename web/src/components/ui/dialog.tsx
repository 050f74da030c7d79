import { Dialog as ArkDialog } from '@ark-ui/react/dialog'
import { Portal } from '@ark-ui/react/portal'
import { XIcon } from 'lucide-react'
import type { ComponentProps, ReactNode } from 'react'
import { createStyleContext, styled } from 'styled-system/jsx'
import { dialog } from 'styled-system/recipes'
import { IconButton } from './button.tsx'

const { withRootProvider, withContext } = createStyleContext(dialog)

/** `open` / `onOpenChange({ open })`; `closeOnInteractOutside={false}` keeps it open on outside clicks. */
export const DialogRoot = withRootProvider(ArkDialog.Root, { defaultProps: { lazyMount: true, unmountOnExit: true } })
export const DialogTrigger = withContext(ArkDialog.Trigger, 'trigger')
export const DialogBackdrop = withContext(ArkDialog.Backdrop, 'backdrop')
export const DialogPositioner = withContext(ArkDialog.Positioner, 'positioner')
export const DialogContent = withContext(ArkDialog.Content, 'content')
export const DialogTitle = withContext(ArkDialog.Title, 'title')
export const DialogDescription = withContext(ArkDialog.Description, 'description')
export const DialogCloseTrigger = withContext(ArkDialog.CloseTrigger, 'closeTrigger')

export type DialogPanelProps = Omit<ComponentProps<typeof DialogContent>, 'title'> & {
  title: ReactNode
  description?: ReactNode
  /** Buttons at the bottom right. */
  footer?: ReactNode
  children?: ReactNode
}

/**
 * The usual dialog body: portal, backdrop, a padded panel with title, optional
 * description, content, footer buttons and a close button. Put it inside DialogRoot.
 */
export function DialogPanel({ title, description, footer, children, ...props }: DialogPanelProps) {
  return (
    <Portal>
      <DialogBackdrop />
      <DialogPositioner px="4">
        <DialogContent width="full" maxW="md" minW="0" {...props}>
          <styled.div display="flex" flexDirection="column" gap="5" p="6">
            <styled.div display="flex" flexDirection="column" gap="1" pe="8">
              <DialogTitle>{title}</DialogTitle>
              {description && <DialogDescription>{description}</DialogDescription>}
            </styled.div>
            {children}
            {footer && (
              <styled.div display="flex" gap="3" justifyContent="flex-end">
                {footer}
              </styled.div>
            )}
          </styled.div>
          <DialogCloseTrigger asChild position="absolute" top="2" right="2">
            <IconButton aria-label="Close dialog" variant="ghost" size="sm">
              <XIcon />
            </IconButton>
          </DialogCloseTrigger>
        </DialogContent>
      </DialogPositioner>
    </Portal>
  )
}
