import { useEffect, useRef, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { TextField } from '~/components/ui/field.tsx'

const SETTLE_MS = 400

export type TitleSearchProps = {
  /** The words in the URL. */
  value: string
  onChange(q: string): void
}

/**
 * The list's "Search titles" box: typing settles for a moment (or Enter is
 * pressed) before the words go into the URL, so each keystroke is not a
 * history entry and a request. The URL changing elsewhere (back, a link)
 * shows in the box.
 */
export function TitleSearch({ value, onChange }: TitleSearchProps) {
  const [text, setText] = useState(value)
  const sent = useRef(value)
  const commit = useRef(onChange)
  commit.current = onChange

  useEffect(() => {
    if (value !== sent.current) {
      sent.current = value
      setText(value)
    }
  }, [value])

  useEffect(() => {
    if (text.trim() === sent.current.trim()) return
    const timer = setTimeout(() => {
      sent.current = text.trim()
      commit.current(text.trim())
    }, SETTLE_MS)
    return () => clearTimeout(timer)
  }, [text])

  return (
    <styled.form
      role="search"
      flex={{ base: '1 1 100%', sm: '1' }}
      width={{ sm: '56' }}
      minW="0"
      onSubmit={(e) => {
        e.preventDefault()
        sent.current = text.trim()
        commit.current(text.trim())
      }}
    >
      <TextField label="Search titles" type="search" size="sm" value={text} maxLength={200} onChange={(e) => setText(e.currentTarget.value)} />
    </styled.form>
  )
}
