import { useQuery } from '@tanstack/react-query'
import { PencilIcon, PlusIcon, Trash2Icon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button, IconButton } from '~/components/ui/button.tsx'
import { Checkbox } from '~/components/ui/checkbox.tsx'
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx'
import { DialogPanel, DialogRoot } from '~/components/ui/dialog.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { Heading } from '~/components/ui/heading.tsx'
import { errorText } from '~/lib/api.ts'
import { type Group, allSubscriptionsQuery, groupsQuery, useDeleteGroup, useSaveGroup } from '~/lib/feed-settings-api.ts'

/**
 * Subscriptions → Groups (docs/product.md#groups): the person's groups of channels, each a chip
 * above the feed. New group, Edit (name and channels) and Delete; a channel may be in several.
 */
export function GroupsSection() {
  const groups = useQuery(groupsQuery)
  const [editing, setEditing] = useState<Group | 'new' | null>(null)
  const [removing, setRemoving] = useState<Group | null>(null)
  const remove = useDeleteGroup()
  const list = groups.data?.groups ?? []
  return (
    <styled.section id="groups" aria-labelledby="groups-heading" display="flex" flexDirection="column" gap="3" scrollMarginTop="20">
      <styled.div display="flex" alignItems="center" justifyContent="space-between" gap="3" flexWrap="wrap">
        <Heading as="h2" size="lg" id="groups-heading">
          Groups
        </Heading>
        <Button variant="outline" size="sm" onClick={() => setEditing('new')}>
          <PlusIcon />
          New group
        </Button>
      </styled.div>
      {groups.isError && <Alert status="error">{errorText(groups.error)}</Alert>}
      {groups.isSuccess && list.length === 0 && (
        <styled.p color="fg.muted" textStyle="sm">
          Put channels in groups to choose them above the video list, such as Music or News.
        </styled.p>
      )}
      {list.length > 0 && (
        <styled.ul display="flex" flexWrap="wrap" gap="2" aria-label="Your groups">
          {list.map((g) => (
            <styled.li key={g.id} display="flex" alignItems="center" gap="1" ps="3" pe="1" py="1" borderWidth="1px" borderRadius="l3" bg="gray.a2">
              <styled.span fontWeight="medium" textStyle="sm">
                {g.name}
              </styled.span>
              <styled.span color="fg.muted" textStyle="xs" ps="1">
                {g.channelIds.length} channel{g.channelIds.length === 1 ? '' : 's'}
              </styled.span>
              <IconButton aria-label={`Edit group ${g.name}`} variant="ghost" size="sm" onClick={() => setEditing(g)}>
                <PencilIcon />
              </IconButton>
              <IconButton aria-label={`Delete group ${g.name}`} variant="ghost" size="sm" onClick={() => setRemoving(g)}>
                <Trash2Icon />
              </IconButton>
            </styled.li>
          ))}
        </styled.ul>
      )}
      <GroupDialog group={editing} onClose={() => setEditing(null)} />
      <ConfirmDialog
        open={!!removing}
        onClose={() => {
          setRemoving(null)
          remove.reset()
        }}
        title="Delete group"
        description={`Delete the group “${removing?.name ?? ''}”? Its channels stay followed.`}
        pending={remove.isPending}
        error={remove.isError ? errorText(remove.error) : null}
        onConfirm={() => removing && remove.mutate(removing.id, { onSuccess: () => setRemoving(null) })}
      />
    </styled.section>
  )
}

function GroupDialog({ group, onClose }: { group: Group | 'new' | null; onClose(): void }) {
  return (
    <DialogRoot open={!!group} onOpenChange={(d) => !d.open && onClose()}>
      {group && <GroupForm key={group === 'new' ? 'new' : group.id} group={group === 'new' ? null : group} onClose={onClose} />}
    </DialogRoot>
  )
}

function GroupForm({ group, onClose }: { group: Group | null; onClose(): void }) {
  const channels = useQuery(allSubscriptionsQuery)
  const save = useSaveGroup()
  const [name, setName] = useState(group?.name ?? '')
  const [picked, setPicked] = useState(() => new Set(group?.channelIds ?? []))
  const nameError = save.isError && /^name/.test(errorText(save.error)) ? errorText(save.error) : null
  return (
    <DialogPanel
      title={group ? 'Edit group' : 'New group'}
      footer={
        <>
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button
            type="submit"
            form="group-form"
            loading={save.isPending}
          >
            Save
          </Button>
        </>
      }
    >
      <form
        id="group-form"
        onSubmit={(e) => {
          e.preventDefault()
          const ordered = (channels.data ?? []).map((c) => c.id).filter((id) => picked.has(id))
          save.mutate({ id: group?.id, name: name.trim(), channelIds: ordered }, { onSuccess: onClose })
        }}
      >
        <styled.div display="flex" flexDirection="column" gap="4">
          <TextField label="Name" value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} error={nameError} />
          <styled.fieldset display="flex" flexDirection="column" gap="2" minW="0">
            <styled.legend fontWeight="medium" textStyle="sm" mb="2">
              Channels
            </styled.legend>
            {channels.isPending && <styled.p textStyle="sm">Loading channels…</styled.p>}
            {channels.data?.length === 0 && <styled.p textStyle="sm">Follow channels first: they can then be put in groups.</styled.p>}
            <styled.div display="flex" flexDirection="column" gap="2" maxH="64" overflowY="auto" p="1">
              {channels.data?.map((c) => (
                <Checkbox
                  key={c.id}
                  checked={picked.has(c.id)}
                  onCheckedChange={(d) =>
                    setPicked((old) => {
                      const next = new Set(old)
                      if (d.checked === true) next.add(c.id)
                      else next.delete(c.id)
                      return next
                    })
                  }
                >
                  {c.title}
                </Checkbox>
              ))}
            </styled.div>
          </styled.fieldset>
          {save.isError && !nameError && <Alert status="error">{errorText(save.error)}</Alert>}
        </styled.div>
      </form>
    </DialogPanel>
  )
}
