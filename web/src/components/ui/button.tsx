import { ark } from '@ark-ui/react/factory'
import type { ComponentProps, ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { button } from 'styled-system/recipes'
import { Spinner } from './spinner.tsx'

const BaseButton = styled(ark.button, button)

export type ButtonProps = ComponentProps<typeof BaseButton> & {
  /** Shows a spinner, disables the button and keeps its width. */
  loading?: boolean
  /** Text shown beside the spinner while loading (the label is kept otherwise). */
  loadingText?: ReactNode
}

/**
 * Park UI button. Variants: solid (default), outline, ghost, link, subtle;
 * `colorPalette="red"` for destructive actions.
 */
export function Button({ loading, loadingText, children, disabled, ...props }: ButtonProps) {
  const showLoader = loading && !props.asChild
  return (
    <BaseButton
      type="button"
      {...props}
      data-loading={loading ? '' : undefined}
      aria-busy={loading || undefined}
      disabled={loading || disabled}
    >
      {showLoader && loadingText ? (
        <>
          <Spinner size="sm" borderColor="currentColor" borderBottomColor="transparent" borderInlineStartColor="transparent" />
          {loadingText}
        </>
      ) : showLoader ? (
        <>
          <styled.span position="absolute" inset="0" display="flex" alignItems="center" justifyContent="center">
            <Spinner size="sm" borderColor="currentColor" borderBottomColor="transparent" borderInlineStartColor="transparent" />
          </styled.span>
          {/* opacity, not visibility: the label stays the button's accessible name */}
          <styled.span opacity="0" display="inline-flex" alignItems="center" gap="2">
            {children}
          </styled.span>
        </>
      ) : (
        children
      )}
    </BaseButton>
  )
}

/** Square button holding only an icon; give it an `aria-label`. */
export function IconButton(props: ButtonProps & { 'aria-label': string }) {
  return <Button px="0" aspectRatio="square" {...props} />
}
