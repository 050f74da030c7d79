import { CircleAlertIcon, CircleCheckIcon, InfoIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { css, cx } from 'styled-system/css'
import { alert } from 'styled-system/recipes'

// literal css() calls so Panda extracts each palette at build time
const tone = {
  success: { palette: css({ colorPalette: 'green' }), title: 'Success', Icon: CircleCheckIcon, role: 'status' },
  error: { palette: css({ colorPalette: 'red' }), title: 'Error', Icon: CircleAlertIcon, role: 'alert' },
  info: { palette: css({ colorPalette: 'iris' }), title: 'Info', Icon: InfoIcon, role: 'status' },
} as const

const tinted = css({ borderColor: 'colorPalette.a7', bg: 'colorPalette.a2' })
const tintedText = css({ color: 'colorPalette.text' })
const plainText = css({ color: 'fg.default' })

export type AlertProps = {
  /** success: green 'Success' alert; error: red 'Error' alert. */
  status: keyof typeof tone
  title?: ReactNode
  children: ReactNode
}

/** Park UI alert used for form results: `<Alert status="error">{errorText(err)}</Alert>`. */
export function Alert({ status, title, children }: AlertProps) {
  const t = tone[status]
  const s = alert()
  return (
    <div className={cx(s.root, t.palette, tinted)} role={t.role}>
      <t.Icon className={cx(s.icon, tintedText)} aria-hidden />
      <div className={s.content}>
        <div className={cx(s.title, tintedText)}>{title ?? t.title}</div>
        <div className={cx(s.description, plainText)}>{children}</div>
      </div>
    </div>
  )
}
