import { Toast, Toaster, createToaster } from '@ark-ui/react/toast'
import { CircleAlertIcon, CircleCheckIcon, InfoIcon, XIcon } from 'lucide-react'
import { css, cx } from 'styled-system/css'
import { styled } from 'styled-system/jsx'
import { toast } from 'styled-system/recipes'
import { IconButton } from './button.tsx'

/** docs/product.md#constants: bottom-right, auto-close 4000 ms, at most 5 shown (more wait), width 440, 250 ms transition. */
export const toaster = createToaster({
  placement: 'bottom-end',
  duration: 4000,
  max: 5,
  overlap: false,
  gap: 12,
  removeDelay: 250,
})

/**
 * Shows a notification from anywhere (no hook needed):
 *
 *     notify.success('Job Created Successfully')
 *     notify.error('Job Failed to Start', errorText(err))
 */
export const notify = {
  success: (title: string, description?: string) => toaster.create({ type: 'success', title, description }),
  error: (title: string, description?: string, action?: { label: string; onClick: () => void }) =>
    toaster.create({ type: 'error', title, description, action }),
  info: (title: string, description?: string) => toaster.create({ type: 'info', title, description }),
}

const icons = {
  success: { Icon: CircleCheckIcon, cls: css({ color: 'green.text' }) },
  error: { Icon: CircleAlertIcon, cls: css({ color: 'red.text' }) },
  info: { Icon: InfoIcon, cls: css({ color: 'colorPalette.text' }) },
}

const rootSize = css({ width: '440px', maxWidth: 'calc(100vw - 2rem)', transitionDuration: '250ms' })

/** Renders the toasts; mounted once in the root route. */
export function AppToaster() {
  const s = toast()
  return (
    <Toaster toaster={toaster}>
      {(t) => {
        const { Icon, cls } = icons[(t.type as keyof typeof icons) ?? 'info'] ?? icons.info
        return (
          <Toast.Root className={cx(s.root, rootSize)}>
            <styled.div display="flex" gap="3" alignItems="flex-start" pe="8">
              <Icon className={cx(cls, css({ flexShrink: 0, width: '5', height: '5', mt: '0.5' }))} aria-hidden />
              <styled.div display="flex" flexDirection="column" gap="1">
                <Toast.Title className={s.title}>{t.title}</Toast.Title>
                {t.description && <Toast.Description className={s.description}>{t.description}</Toast.Description>}
                {t.action && (
                  <Toast.ActionTrigger className={cx(s.actionTrigger, css({ alignSelf: 'flex-start', mt: '1', textDecoration: 'underline', color: 'fg.default', cursor: 'pointer' }))}>
                    {t.action.label}
                  </Toast.ActionTrigger>
                )}
              </styled.div>
            </styled.div>
            <Toast.CloseTrigger className={s.closeTrigger} asChild>
              <IconButton aria-label="Close notification" variant="ghost" size="sm">
                <XIcon />
              </IconButton>
            </Toast.CloseTrigger>
          </Toast.Root>
        )
      }}
    </Toaster>
  )
}
