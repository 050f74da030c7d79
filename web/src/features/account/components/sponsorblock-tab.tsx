import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { SPONSORBLOCK_ACTIONS, type SponsorblockAction } from '#server/youtube/listen/schema.ts'
import { Alert } from '~/components/ui/alert.tsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { SegmentedControl } from '~/components/ui/segmented-control.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { errorText } from '~/lib/api.ts'
import { ACTION_LABELS, CATEGORY_INFO, SPONSORBLOCK_CATEGORIES } from '~/player/segments.ts'
import { type SponsorblockSettings, sponsorblockQuery, useSaveSponsorblock } from '~/player/sponsorblock-api.ts'

const options = SPONSORBLOCK_ACTIONS.map((a) => ({ value: a, label: ACTION_LABELS[a] }))

/**
 * Account → SponsorBlock (docs/product.md#sponsorblock): what the player does with each
 * SponsorBlock category: Skip, Mute, Show (a mark on the progress bar) or Off.
 */
export function SponsorblockTab() {
  const query = useQuery(sponsorblockQuery)
  if (!query.data) return query.error ? <Alert status="error">{errorText(query.error)}</Alert> : <Spinner label="Loading" />
  return <SponsorblockForm saved={query.data.categories} />
}

function SponsorblockForm({ saved }: { saved: SponsorblockSettings }) {
  const save = useSaveSponsorblock()
  const [values, setValues] = useState(saved)
  useEffect(() => setValues(saved), [saved])
  return (
    <CardRoot>
      <CardBody pt="6">
        <Form
          onSubmit={(e) => {
            e.preventDefault()
            save.mutate(values)
          }}
        >
          <styled.p color="fg.muted" textStyle="sm">
            SponsorBlock is a shared list of parts of videos that viewers marked, such as sponsor reads. Choose what the player does with
            each kind: skip it, mute it, mark it on the progress bar (Show), or nothing (Off). Videos are looked up by a short hash prefix,
            never by their address.
          </styled.p>
          <styled.div display="flex" flexDirection="column" gap="5">
            {SPONSORBLOCK_CATEGORIES.map((c) => {
              const info = CATEGORY_INFO[c]
              return (
                <styled.div key={c} display="flex" flexDirection={{ base: 'column', md: 'row' }} gap="3" alignItems={{ md: 'center' }} data-category={c}>
                  <styled.div flex="1" minW="0">
                    <styled.p fontWeight="medium" textStyle="sm">
                      {info.label}
                    </styled.p>
                    <styled.p color="fg.muted" textStyle="sm">
                      {info.description}
                    </styled.p>
                  </styled.div>
                  <SegmentedControl
                    aria-label={`${info.label}: action`}
                    size="sm"
                    options={options}
                    value={values[c]}
                    onValueChange={(v) => {
                      save.reset()
                      setValues((old) => ({ ...old, [c]: v as SponsorblockAction }))
                    }}
                  />
                </styled.div>
              )
            })}
          </styled.div>
          {save.isSuccess && <Alert status="success">SponsorBlock settings saved. The player follows them from now on.</Alert>}
          {save.isError && <Alert status="error">SponsorBlock settings were not saved: {errorText(save.error)}</Alert>}
          <FormActions submit="Save" submitProps={{ loading: save.isPending }} />
        </Form>
      </CardBody>
    </CardRoot>
  )
}
