import { useQuery } from '@tanstack/react-query'
import { XIcon } from 'lucide-react'
import { useEffect, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { DEARROW_MODES, type DearrowMode, MUTED_WORDS_MAX } from '#server/youtube/personal/schema.ts'
import { Alert } from '~/components/ui/alert.tsx'
import { Button, IconButton } from '~/components/ui/button.tsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { Heading } from '~/components/ui/heading.tsx'
import { SegmentedControl } from '~/components/ui/segmented-control.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { errorText } from '~/lib/api.ts'
import { dearrowQuery, filtersQuery, useSaveDearrow, useSaveFilters } from '~/lib/feed-settings-api.ts'

/** Account → Feed (docs/product.md#muted-words, #dearrow): muted words and DeArrow. */
export function FeedTab() {
  return (
    <styled.div display="flex" flexDirection="column" gap="6">
      <MutedWords />
      <Dearrow />
    </styled.div>
  )
}

function MutedWords() {
  const query = useQuery(filtersQuery)
  const save = useSaveFilters()
  const [word, setWord] = useState('')
  const [error, setError] = useState<string | null>(null)
  const words = query.data?.mutedWords ?? []
  const hidden = new Map((query.data?.hidden ?? []).map((h) => [h.word, h.videos]))
  const store = (next: string[]) => save.mutate(next, { onError: (e) => setError(errorText(e)) })
  return (
    <CardRoot>
      <CardBody pt="6" display="flex" flexDirection="column" gap="4">
        <Heading as="h2" size="md">
          Muted words
        </Heading>
        <styled.p color="fg.muted" textStyle="sm">
          Videos whose title contains one of these words or phrases, as a whole word in any case, are left out of the video list (with
          every filter and group). They still show on their channel's page, in Liked and in the queue. At most {MUTED_WORDS_MAX}.
        </styled.p>
        <form
          onSubmit={(e) => {
            e.preventDefault()
            const w = word.trim()
            if (!w) return
            setError(null)
            if (words.some((x) => x.toLowerCase() === w.toLowerCase())) return setWord('')
            save.mutate([...words, w], { onSuccess: () => setWord(''), onError: (err) => setError(errorText(err)) })
          }}
        >
          <styled.div display="flex" alignItems="flex-end" gap="3" flexWrap="wrap">
            <styled.div flex="1" minW="48">
              <TextField label="Word or phrase" value={word} maxLength={50} onChange={(e) => setWord(e.target.value)} error={error} />
            </styled.div>
            <Button type="submit" loading={save.isPending} disabled={words.length >= MUTED_WORDS_MAX}>
              Mute
            </Button>
          </styled.div>
        </form>
        {query.isPending && <Spinner label="Loading" />}
        {query.isError && <Alert status="error">{errorText(query.error)}</Alert>}
        {query.isSuccess && words.length === 0 && (
          <styled.p textStyle="sm" color="fg.muted">
            No muted words.
          </styled.p>
        )}
        {words.length > 0 && (
          <styled.ul display="flex" flexWrap="wrap" gap="2" aria-label="Muted words">
            {words.map((w, i) => {
              const n = hidden.get(w) ?? 0
              return (
                <styled.li key={`${i}-${w}`} display="flex" alignItems="center" gap="2" ps="3" pe="1" py="1" borderWidth="1px" borderRadius="l3" bg="gray.a2">
                  <styled.span fontWeight="medium" textStyle="sm">
                    {w}
                  </styled.span>
                  <styled.span color="fg.muted" textStyle="xs">
                    hides {n} video{n === 1 ? '' : 's'}
                  </styled.span>
                  <IconButton aria-label={`Unmute ${w}`} variant="ghost" size="sm" onClick={() => store(words.filter((_, j) => j !== i))}>
                    <XIcon />
                  </IconButton>
                </styled.li>
              )
            })}
          </styled.ul>
        )}
      </CardBody>
    </CardRoot>
  )
}

const MODE_LABELS: Record<DearrowMode, string> = { off: 'Off', titles: 'Titles', titles_thumbnails: 'Titles and thumbnails' }

function Dearrow() {
  const query = useQuery(dearrowQuery)
  const save = useSaveDearrow()
  const [mode, setMode] = useState<DearrowMode>('off')
  useEffect(() => {
    if (query.data) setMode(query.data.mode)
  }, [query.data])
  return (
    <CardRoot>
      <CardBody pt="6" display="flex" flexDirection="column" gap="4">
        <Heading as="h2" size="md">
          DeArrow
        </Heading>
        <styled.p color="fg.muted" textStyle="sm">
          DeArrow is a shared list of clearer titles and thumbnails that viewers submit in place of clickbait. With it on, cards and the
          video page show DeArrow's title, and the original one is a press away (Original title). Off by default.
        </styled.p>
        <styled.ul color="fg.muted" textStyle="sm" listStyleType="disc" ps="5">
          <li>Titles: this server asks DeArrow (sponsor.ajay.app unless the admin chose another) by a 4-character prefix of a hash of each video's id, never the id itself, and keeps the answers a few hours.</li>
          <li>Thumbnails: DeArrow's thumbnail service (dearrow-thumb.ajay.app unless the admin chose another) is given the video's id, by this server and not by your browser.</li>
          <li>Off: nothing about your videos is sent to DeArrow.</li>
        </styled.ul>
        <SegmentedControl
          aria-label="DeArrow"
          size="sm"
          options={DEARROW_MODES.map((m) => ({ value: m, label: MODE_LABELS[m] }))}
          value={mode}
          onValueChange={(v) => {
            setMode(v as DearrowMode)
            save.mutate(v as DearrowMode)
          }}
        />
        {save.isSuccess && <Alert status="success">DeArrow: {MODE_LABELS[save.data.mode]}.</Alert>}
        {save.isError && <Alert status="error">DeArrow setting was not saved: {errorText(save.error)}</Alert>}
      </CardBody>
    </CardRoot>
  )
}
